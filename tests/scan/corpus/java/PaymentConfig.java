package net.acmecorp.billing.config;

import java.time.Duration;
import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import com.stripe.Stripe;
import com.twilio.Twilio;

/**
 * Payment provider configuration.
 *
 * @author Tomasz Nowak
 * @since 2023.11
 */
@Configuration
public class PaymentConfig {

    // TODO: move to Vault (BILL-2231)
    private static final String STRIPE_API_KEY = "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";
    private static final String TWILIO_KEY_SID = "SK015c075664fe11e4f3e1d5c628b468fb";
    private static final String JDBC_URL =
            "jdbc:mysql://db-legacy.internal:3306/payments?user=payments&password=cIhJxAGa9JNmXb&useSSL=true";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final long SERIAL_VERSION = 8122937711649237451L;

    @Value("${twilio.api-secret}")
    private String twilioSecret;

    @Value("${payments.webhook.secret:}")
    private String webhookSecret;

    @Bean
    public PaymentGateway paymentGateway() {
        Stripe.apiKey = STRIPE_API_KEY;
        Twilio.init(TWILIO_KEY_SID, twilioSecret, "ACb7f5782673b15994a5d5792fb7e57c24");
        return new PaymentGateway(JDBC_URL, TIMEOUT, Map.of("retries", 3));
    }

    public boolean checkPassword(String password, String hash) {
        if (password == null || password.isEmpty()) {
            return false;
        }
        return PasswordHasher.verify(password, hash);
    }

    public String maskedCard(String number) {
        return "**** **** **** " + number.substring(number.length() - 4);
    }
}
