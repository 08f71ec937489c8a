"""Settings for the billing service in production.

Read once at start-up. Secrets should come from the environment (see ops/README.md in the
infra repository); the ones still written here are being moved out, one release at a time.
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = "django-insecure-kqvyv#i0n^m**m*90!3cq41ywuryw#d+%djmiqe@y&5h%=enqf"
DEBUG = False
ALLOWED_HOSTS = ["billing.acme-corp.net", "10.20.0.15", "localhost", "127.0.0.1"]
INTERNAL_IPS = ["127.0.0.1", "10.87.245.100"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "billing.invoices",
    "billing.payments",
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "billing",
        "USER": "billing_app",
        "PASSWORD": "Qv7!rT2#pLm9-wx",
        "HOST": "db-primary.internal",
        "PORT": "5432",
        "CONN_MAX_AGE": 60,
    },
    "replica": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "billing",
        "USER": "billing_ro",
        "PASSWORD": os.environ.get("REPLICA_DB_PASSWORD", ""),
        "HOST": "db-replica.internal",
        "PORT": "5432",
    },
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://:gyhqRu5LQ4LwkWwbf2NC@cache.internal:6379/1",
        "TIMEOUT": 300,
    }
}

# Invoices are archived to S3; the IAM user only has s3:PutObject on the bucket.
AWS_ACCESS_KEY_ID = "AKIAOQJBIO36R3DIK7X5"
AWS_SECRET_ACCESS_KEY = "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"
AWS_STORAGE_BUCKET_NAME = "acme-billing-invoices"
AWS_S3_REGION_NAME = "eu-west-1"
AWS_S3_SIGNATURE_VERSION = "s3v4"

STRIPE_SECRET_KEY = "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"
STRIPE_PUBLISHABLE_KEY = "pk_live_5163vhtotySVgiEJDVQLA94z6GkWzwMBkj0tUfBLkHhLILUG3j0l4irLjQB9IabCjOsMFYpTdYYkAC2ceH00KuP1pLGiyrRfU1y"
STRIPE_WEBHOOK_SECRET = "whsec_BbOLl5WOK75wgUEQB8oG7iG8fsEHOu1X"
STRIPE_API_VERSION = "2023-10-16"

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "smtp.sendgrid.net"
EMAIL_PORT = 587
EMAIL_USE_TLS = True
EMAIL_HOST_USER = "apikey"
EMAIL_HOST_PASSWORD = "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"
DEFAULT_FROM_EMAIL = "Acme Billing <billing@acme-corp.net>"
SERVER_EMAIL = "alerts@acme-corp.net"
ADMINS = [("Priya Raman", "yuki+billing@outlook.com"), ("Jonas Becker", "mei+billing@outlook.com")]

SENTRY_DSN = "https://f0e4ff60e026a31f9d887bd34bce5946@o4505112233.ingest.sentry.io/4505112244"
OPENAI_API_KEY = os.environ["OPENAI_API_KEY"]

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24
SESSION_COOKIE_AGE = 60 * 60 * 8
SESSION_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = ["https://billing.acme-corp.net"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_THROTTLE_RATES": {"anon": "20/minute", "user": "600/minute"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
}

# Build metadata, filled in by CI.
BUILD_COMMIT = "179538f64a79b3865ce73af5636916b02371fa08"
STATIC_MANIFEST_SHA256 = "1175c961c3131176dfac7656ef9c17185eefc7013af759d7cbd68b07fd9ff50d"
RELEASE = "billing@2024.03.2"
