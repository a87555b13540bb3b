# Verifies the Prepaid-Signature header of a webhook delivery (Python 3.7 or later).
# payload is the raw body exactly as received (bytes); secret is your whsec_... webhook secret.
import hashlib
import hmac
import time


def prepaid_signature_is_valid(payload: bytes, header: str, secret: str, tolerance_seconds: int = 300) -> bool:
    timestamp = None
    signatures = []
    for part in (header or "").split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not (timestamp.isascii() and timestamp.isdigit()):
        return False
    if abs(time.time() - int(timestamp)) > tolerance_seconds:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + payload, hashlib.sha256).hexdigest()
    # During a secret rotation the header carries one v1 per secret: any one is enough.
    return any(hmac.compare_digest(expected, signature) for signature in signatures)


# In your webhook endpoint (Flask shown; any framework that gives the raw body will do):
#   payload = request.get_data()
#   if not prepaid_signature_is_valid(payload, request.headers.get("Prepaid-Signature", ""),
#                                     os.environ["PREPAID_WEBHOOK_SECRET"]):
#       abort(400)
#   event = json.loads(payload)
#   # Ignore an event id you have already handled: the same event may arrive twice.
#   return "", 200
