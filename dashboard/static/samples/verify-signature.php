<?php
// Verifies the Prepaid-Signature header of a webhook delivery (PHP 7.0 or later).
// $payload is the raw body exactly as received; $secret is your whsec_... webhook secret.
function prepaid_signature_is_valid(string $payload, string $header, string $secret, int $toleranceSeconds = 300): bool
{
    $timestamp = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        $pair = explode('=', trim($part), 2);
        if (count($pair) !== 2) {
            continue;
        }
        if ($pair[0] === 't') {
            $timestamp = $pair[1];
        } elseif ($pair[0] === 'v1') {
            $signatures[] = $pair[1];
        }
    }
    if ($timestamp === null || !preg_match('/^[0-9]+$/', $timestamp)) {
        return false;
    }
    if (abs(time() - (int) $timestamp) > $toleranceSeconds) {
        return false;
    }
    $expected = hash_hmac('sha256', $timestamp . '.' . $payload, $secret);
    foreach ($signatures as $signature) {
        // During a secret rotation the header carries one v1 per secret: any one is enough.
        if (hash_equals($expected, $signature)) {
            return true;
        }
    }
    return false;
}

// In your webhook endpoint:
//   $payload = file_get_contents('php://input');
//   $header = $_SERVER['HTTP_PREPAID_SIGNATURE'] ?? '';
//   if (!prepaid_signature_is_valid($payload, $header, getenv('PREPAID_WEBHOOK_SECRET'))) {
//       http_response_code(400);
//       exit;
//   }
//   $event = json_decode($payload, true);
//   // Ignore an event id you have already handled: the same event may arrive twice.
//   http_response_code(200);
