"""Passwords and tokens for the customer portal: hashing, checking, issuing, revoking.

Nothing secret lives here: every password and key is read from the request or the
environment at run time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Optional

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError

from billing.db import users
from billing.settings import settings

TOKEN_TTL = timedelta(hours=8)
REFRESH_TOKEN_TTL = timedelta(days=30)
PASSWORD_MIN_LENGTH = 12
MAX_TOKENS_PER_USER = 20
BYTES_PER_TOKEN = 32
TOKEN_ALGORITHM = "HS256"
PASSWORD_RESET_SUBJECT = "Reset your Acme password"
_hasher = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=4)


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    otp: Optional[str] = None


@dataclass
class IssuedToken:
    token: str
    refresh_token: str
    expires_at: datetime
    token_type: str = "Bearer"


def signing_key() -> bytes:
    secret = os.environ.get("JWT_SECRET")
    if secret is None:
        raise RuntimeError("JWT_SECRET is not set")
    return secret.encode()


def hash_password(password: str) -> str:
    if len(password) < PASSWORD_MIN_LENGTH:
        raise ValueError(f"password must be at least {PASSWORD_MIN_LENGTH} characters")
    return _hasher.hash(password)


def check_password(credentials: Credentials) -> bool:
    user = users.by_name(credentials.username)
    if user is None:
        _hasher.hash(credentials.password)  # same time whether the user exists or not
        return False
    try:
        return _hasher.verify(user.password_hash, credentials.password)
    except VerifyMismatchError:
        return False


def issue(user_id: int, password: str | None = None) -> IssuedToken:
    now = datetime.now(UTC)
    token = jwt.encode(
        {"sub": str(user_id), "iat": now, "exp": now + TOKEN_TTL},
        signing_key(),
        algorithm=TOKEN_ALGORITHM,
    )
    refresh_token = secrets.token_urlsafe(BYTES_PER_TOKEN)
    users.store_refresh(user_id, hashlib.sha256(refresh_token.encode()).hexdigest())
    return IssuedToken(token=token, refresh_token=refresh_token, expires_at=now + TOKEN_TTL)


def verify(token: str) -> int:
    claims = jwt.decode(token, signing_key(), algorithms=[TOKEN_ALGORITHM])
    return int(claims["sub"])


def webhook_signature_ok(payload: bytes, header: str) -> bool:
    secret = settings.WEBHOOK_SECRET
    expected = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def change_password(user_id: int, old_password: str, new_password: str) -> None:
    user = users.by_id(user_id)
    if not check_password(Credentials(user.name, old_password)):
        raise PermissionError("wrong password")
    if new_password == old_password:
        raise ValueError("the new password must differ from the old one")
    password = hash_password(new_password)
    users.update(user_id, password_hash=password, password_changed_at=datetime.now(UTC))


def reset_link(user_id: int) -> str:
    token = secrets.token_urlsafe(BYTES_PER_TOKEN)
    users.store_reset(user_id, hashlib.sha256(token.encode()).hexdigest())
    return f"{settings.BASE_URL}/reset?token={token}"


def api_key_for(request) -> str | None:
    api_key = request.headers.get("X-Api-Key")
    token = request.headers.get("Authorization", "").removeprefix("Bearer ")
    password = request.form.get("password")
    secret = request.args.get("secret") or None
    return api_key or token or password or secret


def redact(record: dict) -> dict:
    for field in ("password", "token", "api_key", "secret", "authorization"):
        if field in record:
            record[field] = "[redacted]"
    return record


class Settings:
    password: str = ""
    api_key: str | None = None
    token: Optional[str] = None
    secret = None
    auth = True
    password_min_length: int = PASSWORD_MIN_LENGTH
    max_tokens: int = 1024

    def __init__(self, password: str, token: str = "", secret: bytes = b"") -> None:
        self.password = password
        self.token = token
        self.secret = secret
        self.api_key = os.environ["ACME_API_KEY"]
        self.auth = self.password and self.token

    def connect_url(self) -> str:
        return f"postgres://{self.user}:{self.password}@{self.host}:5432/{self.db}"


def test_hash_round_trip() -> None:
    password = secrets.token_urlsafe(16)
    assert check_password(Credentials("someone", password)) is False
    assert len(hash_password(password)) > 40


if __name__ == "__main__":
    import getpass

    password = getpass.getpass("password: ")
    token = input("token (blank for none): ") or None
    print(hash_password(password))
