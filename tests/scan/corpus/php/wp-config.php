<?php
/**
 * The base configuration for WordPress (blog.acme-corp.net).
 *
 * @link https://wordpress.org/documentation/article/editing-wp-config-php/
 * @package WordPress
 */

// ** Database settings ** //
define( 'DB_NAME', 'acme_blog' );
define( 'DB_USER', 'acme_blog' );
define( 'DB_PASSWORD', 'b10g-Pr0d-2023!x' );
define( 'DB_HOST', 'mysql-blog.internal' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );

/**#@+
 * Authentication unique keys and salts.
 * Change these to different unique phrases! You can generate these using the
 * WordPress.org secret-key service.
 */
define( 'AUTH_KEY',         'r.$c&nlw(|nA;|J$sB2lrsKhw#{81&<oMYi0c|y{F]>$:H8m|OX|eq{l_>_Zu>Dl' );
define( 'SECURE_AUTH_KEY',  'r3c4!?Za-H2(ZWT}X71xYa3Z_]&om4wjB@%@_/lG_OfP_)nSS&!%u9qJ=`6Yly~Y' );
define( 'LOGGED_IN_KEY',    'N}iC-Hy*%Aw{XMFo7zMj_0_zo=sqS=Wv],EvQbaSdijH$g6an(KaFK+%DXy)ad.Z' );
define( 'NONCE_KEY',        ',LXguo##$& E>5c?*U!4NH> Jyj!@}Yid2K^O^cB2yP~&R@mX#0aO|`rW5_))^e2' );
define( 'AUTH_SALT',        'R)^^~/2M)rA{!EF<ZV76{M|!Hn-5Ru;p2Y/uOH/{-K/7G~Zq:)dFaho<l?1f&73=' );
define( 'SECURE_AUTH_SALT', 'd<F8;xRG(2#o29zp|I}o?#b[~u+gu6w[A%Ci[#j:rq9U1p9acfn|ac=a`_f^*7Z%' );
define( 'LOGGED_IN_SALT',   '>7<VHLuu/_Lp-Ew*Ld4$QjP+}W7mA/9gNs4|f)IpB94V3JEN7P>y~-X<wU-(o$f3' );
define( 'NONCE_SALT',       '!Ci86chiHGkoYwQE:<<AE(`[uXUU1X6y5q>L^G/:EIPZb7~MS`k;H4]`NnQ?,&S3' );
/**#@-*/

define( 'WP_MAIL_FROM', 'blog@acme-corp.net' );
define( 'SMTP_PASS', getenv( 'SMTP_PASS' ) );

$table_prefix = 'wp_';

define( 'WP_DEBUG', false );
define( 'WP_CACHE', true );
define( 'WP_MEMORY_LIMIT', '256M' );

if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}

require_once ABSPATH . 'wp-settings.php';
