"""Clients for the services the support bot talks to, built once per process."""

from __future__ import annotations

import logging
import os
from functools import cache

import anthropic
import openai
import requests
from huggingface_hub import login
from twilio.rest import Client

log = logging.getLogger(__name__)

# FIXME: the notebook version had the keys inline; keep them until the secret store is wired up
openai.api_key = "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"
CLAUDE = anthropic.Anthropic(api_key="sk-ant-api03-l9Dm5GkJlf37v5w5_rzWYHLIZSu0HhvVhjGtr7AH8dOAs_JzLkRzHVCM0cyGWNDs4AxAE0Gj1MFM6mFZpkCX6ycTHNM9sAA")

TWILIO_ACCOUNT_SID = "AC99ac8e70f8db6e568235e993b14b443c"
TWILIO_API_KEY = "SK6a5671a906ad0692f6e14c2adc6ffbc6"
TWILIO_API_SECRET = "6cTziA1OOGZOqadFcpHEMYjJknzNwL7p"
SUPPORT_NUMBER = "+1 918-409-6817"

ZENDESK = "https://acme.zendesk.com/api/v2"
ZENDESK_USER = "ravi.martin@yahoo.co.uk/token"
ZENDESK_TOKEN = "SG5Z3KANzoLLaoK3CYsGfNAAGREtKrEZvopleX4K"


@cache
def sms() -> Client:
    return Client(TWILIO_API_KEY, TWILIO_API_SECRET, TWILIO_ACCOUNT_SID)


@cache
def hub() -> None:
    token = os.environ.get("HF_TOKEN")
    if token is None:
        log.warning("HF_TOKEN is not set; falling back to the cached login")
        login(token="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")
    else:
        login(token=token)


def zendesk_ticket(ticket_id: int) -> dict:
    response = requests.get(
        f"{ZENDESK}/tickets/{ticket_id}.json",
        auth=(ZENDESK_USER, ZENDESK_TOKEN),
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["ticket"]


def send_code(number: str, code: str) -> None:
    """Text a one-time code; the code itself is never logged."""
    message = sms().messages.create(to=number, from_=SUPPORT_NUMBER, body=f"Your code: {code}")
    log.info("sent code sid=%s to=%s***", message.sid, number[:4])


def summarise(text: str, max_tokens: int = 512) -> str:
    reply = CLAUDE.messages.create(
        model="claude-3-5-sonnet-20241022",
        max_tokens=max_tokens,
        messages=[{"role": "user", "content": f"Summarise this ticket:\n\n{text}"}],
    )
    return reply.content[0].text
