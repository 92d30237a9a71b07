import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Encryptor } from '../../src-main/secrets/secret-store';

/**
 * A real cipher (AES-256-GCM, a key that lives in this process only) standing in for Electron's
 * safeStorage, which these machines cannot run: the secret table then holds real ciphertext.
 */
export function testEncryptor(): Encryptor {
  const key = randomBytes(32);
  return {
    encryptString: (plain) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString: (encrypted) => {
      const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
