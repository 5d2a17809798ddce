import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Where uploaded files live. Keys are `<folder>/<name>.<ext>` of safe characters only. */
export interface FileStorage {
  put: (key: string, data: Buffer) => Promise<void>;
  /** The bytes, or undefined when there is no such file. */
  get: (key: string) => Promise<Buffer | undefined>;
  /** Removes the file; a missing file is not an error. */
  delete: (key: string) => Promise<void>;
}

const KEY = /^[a-z0-9-]+\/[A-Za-z0-9-]+\.[a-z0-9]+$/;

export function assertStorageKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`invalid storage key: ${key}`);
}

/**
 * Files on a local disk under one directory (`WORKSPACE_STORAGE_DIR`). Several instances must share
 * the directory (a volume); a bucket-backed adapter implements the same interface.
 */
export function createLocalDiskStorage(directory: string): FileStorage {
  const root = resolve(directory);
  const pathOf = (key: string) => {
    assertStorageKey(key);
    return join(root, key);
  };
  return {
    put: async (key, data) => {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written whole, then renamed: a reader never sees half a file.
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, data, { mode: 0o640 });
      await rename(temporary, path);
    },
    get: async (key) => {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    delete: async (key) => {
      await rm(pathOf(key), { force: true });
    },
  };
}
