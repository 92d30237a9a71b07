import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';

/** A GGUF file as a result names it: its name, its bytes' SHA-256 and its size. */
export interface ModelFileIdentity {
  name: string;
  sha256: string;
  bytes: number;
}

/**
 * Hashes are kept per path, size and modification time: a benchmark runs hundreds of questions
 * with one model file, and reading gigabytes again for each would cost more than the runs.
 */
const known = new Map<string, Promise<ModelFileIdentity>>();

/** The file's name, SHA-256 and size, read once per process for an unchanged file. */
export function modelFileIdentity(path: string): Promise<ModelFileIdentity> {
  const stat = statSync(path);
  const key = `${path}\n${stat.size}\n${stat.mtimeMs}`;
  let identity = known.get(key);
  if (!identity) {
    identity = new Promise<ModelFileIdentity>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(path)
        .on('data', (chunk) => hash.update(chunk))
        .on('error', reject)
        .on('end', () => resolve({ name: basename(path), sha256: hash.digest('hex'), bytes: stat.size }));
    });
    identity.catch(() => known.delete(key));
    known.set(key, identity);
  }
  return identity;
}
