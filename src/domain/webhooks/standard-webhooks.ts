/**
 * Signing per the Standard Webhooks specification (https://www.standardwebhooks.com):
 * - the secret is `whsec_` followed by base64 of 24 random bytes; the key is those decoded bytes;
 * - the signed content is `${webhook-id}.${webhook-timestamp}.${body}`, the timestamp in whole seconds;
 * - `webhook-signature` is `v1,` followed by base64 HMAC-SHA256 of that content under the key.
 * The id is the event's id, the same on every retry and redelivery, so receivers de-duplicate by it.
 */
import crypto from 'node:crypto';

const PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return PREFIX + crypto.randomBytes(24).toString('base64');
}

export function webhookHeaders(secret: string, id: string, at: number, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at / 1000));
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
