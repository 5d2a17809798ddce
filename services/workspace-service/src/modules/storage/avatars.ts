import { AppError, AVATAR_MAX_BYTES, AVATAR_TYPES, uuidv7, validationError } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import type { FileStorage } from './adapter.js';

export type AvatarType = keyof typeof AVATAR_TYPES;
const EXTENSION_TYPES = Object.fromEntries(Object.entries(AVATAR_TYPES).map(([t, e]) => [e, t])) as Record<string, AvatarType>;

/** Public path of stored avatars: `/avatars/<name>.<ext>`. */
export const AVATAR_PATH = /^\/avatars\/([0-9a-f-]{36}\.(?:png|jpg|webp|gif))$/;

export interface Upload {
  data: Buffer;
  /** The Content-Type the client declared for the file part. */
  declaredType: string;
}

/** What the bytes are, from their first bytes (never trusting the declared type alone). */
export function sniffImageType(data: Buffer): AvatarType | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 6 && ['GIF87a', 'GIF89a'].includes(data.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (data.length >= 12 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return undefined;
}

export function contentTypeOfAvatar(fileName: string): AvatarType | undefined {
  return EXTENSION_TYPES[fileName.split('.').pop() ?? ''];
}

/** Checks, stores and names avatars; removes replaced ones. */
export function createAvatarStore(deps: { storage: FileStorage; logger: Logger }) {
  return {
    /** Validates the upload and stores it; returns its public path. Nothing is stored when it is refused. */
    save: async (upload: Upload): Promise<string> => {
      if (upload.data.length === 0) throw validationError([{ field: 'file', reason: 'is empty' }]);
      if (upload.data.length > AVATAR_MAX_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The image is larger than ${AVATAR_MAX_BYTES} bytes`, { maxBytes: AVATAR_MAX_BYTES });
      }
      const declared = upload.declaredType.split(';')[0]?.trim().toLowerCase() ?? '';
      if (!(declared in AVATAR_TYPES)) {
        throw new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Avatars must be one of ${Object.keys(AVATAR_TYPES).join(', ')} (got ${declared || 'none'})`,
        );
      }
      const actual = sniffImageType(upload.data);
      if (actual !== declared) {
        throw validationError([{ field: 'file', reason: `is not a ${declared} image${actual ? ` (it is ${actual})` : ''}` }]);
      }
      const name = `${uuidv7()}.${AVATAR_TYPES[actual]}`;
      await deps.storage.put(`avatars/${name}`, upload.data);
      return `/avatars/${name}`;
    },

    /** Removes a stored avatar by its public path (an external URL is left alone). Never throws. */
    remove: async (path: string | null | undefined): Promise<void> => {
      const match = path ? AVATAR_PATH.exec(path) : null;
      if (!match) return;
      try {
        await deps.storage.delete(`avatars/${match[1]}`);
      } catch (error) {
        deps.logger.warn({ err: error, path }, 'could not remove a replaced avatar');
      }
    },

    read: async (fileName: string): Promise<{ data: Buffer; contentType: AvatarType } | undefined> => {
      const contentType = contentTypeOfAvatar(fileName);
      if (!contentType || !AVATAR_PATH.test(`/avatars/${fileName}`)) return undefined;
      const data = await deps.storage.get(`avatars/${fileName}`);
      return data ? { data, contentType } : undefined;
    },
  };
}

export type AvatarStore = ReturnType<typeof createAvatarStore>;
