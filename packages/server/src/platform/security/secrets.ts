import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (processor keys, webhook signing secrets, idempotency records): AES-256-GCM
 * under a key derived from APP_SECRETS_KEY, sealed as one versioned string that names its key
 * (ADR 0007):
 *
 *   v1.<keyId>.<iv>.<ciphertext>.<tag>      (each part base64url; iv 12 bytes, tag 16 bytes)
 *
 * The key id lets the key rotate: seal always uses the current key; open finds the key by id among
 * the current and the previous ones (APP_SECRETS_KEY_PREVIOUS), so values sealed before a rotation
 * stay readable until they are re-sealed.
 */
export type SecretBox = {
  /** Id of the key `seal` uses (8 hex characters). */
  readonly keyId: string;
  /**
   * Encrypts under the current key with a fresh random IV. `context` (e.g. the account id) is
   * authenticated, not stored: `open` must be given the same one, so a sealed value copied to
   * another row or account does not open there.
   */
  seal(plaintext: string, context?: string): string;
  /** Decrypts a sealed value; throws SecretBoxError if it is malformed, tampered with or under an unknown key. */
  open(sealed: string, context?: string): string;
};

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The 32-byte AES key of a configured secret: SHA-256 of its UTF-8 bytes. Enough because the secret
 * is already high-entropy (config requires ≥ 32 characters; generated ones are 48 random bytes) —
 * a password-style KDF would only slow every start.
 */
export function deriveSecretKey(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A short public name of a derived key: the first 8 hex characters of a domain-separated hash. */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update('tally-secret-key-id\0').update(key).digest('hex').slice(0, 8);
}

/**
 * A box sealing with `currentSecret` and opening values sealed under it or any of
 * `previousSecrets` (decrypt-only, for values sealed before a rotation).
 */
export function createSecretBox(currentSecret: string, previousSecrets: readonly string[] = []): SecretBox {
  const current = deriveSecretKey(currentSecret);
  const keyId = secretKeyId(current);
  const keys = new Map<string, Buffer>();
  for (const key of [current, ...previousSecrets.map(deriveSecretKey)]) {
    const id = secretKeyId(key);
    if (!keys.has(id)) keys.set(id, key);
  }
  // The version and key id are authenticated with the payload, so neither can be swapped unnoticed.
  const aad = (id: string, context: string) => Buffer.from(`${VERSION}.${id}.${context}`, 'utf8');

  return {
    keyId,
    seal(plaintext, context = '') {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(aad(keyId, context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, keyId, iv, ciphertext, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context = '') {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION || !parts.slice(2).every((p) => BASE64URL.test(p))) {
        throw new SecretBoxError(`Sealed secret is malformed (expected ${VERSION}.<keyId>.<iv>.<ciphertext>.<tag>)`);
      }
      const [, id, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
      const key = keys.get(id);
      if (!key) {
        throw new SecretBoxError(
          `Sealed secret uses unknown key id '${id}': set APP_SECRETS_KEY or APP_SECRETS_KEY_PREVIOUS to the key it was sealed with`,
        );
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('Sealed secret is malformed (bad IV or tag length)');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(id, context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        throw new SecretBoxError('Sealed secret failed authentication: it was altered, or sealed for another context', { cause: err });
      }
    },
  };
}

const MASK = '*'.repeat(12);

/**
 * A stored secret as shown to operators (contract §5.4): the first 4 characters, 12 `*`, the last 4
 * (`sk_t************3f5a`). A secret of fewer than 12 characters is all mask: showing 8 of them
 * would give most of it away.
 */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return MASK;
  return `${secret.slice(0, 4)}${MASK}${secret.slice(-4)}`;
}
