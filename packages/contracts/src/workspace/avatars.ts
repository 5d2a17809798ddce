import { Type } from '@sinclair/typebox';

/** Avatars: PNG, JPEG, WebP or GIF, at most 2 MiB. SVG is refused (it can carry script). */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
} as const;

/**
 * Request body of an avatar upload, for the OpenAPI description. The service reads the multipart
 * body itself (and checks the part), so validation sees an empty placeholder object.
 */
export const AvatarUploadBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object(
        {
          file: Type.Optional(
            Type.String({
              format: 'binary',
              description: `Required. The image: ${Object.keys(AVATAR_TYPES).join(', ')}; at most ${AVATAR_MAX_BYTES} bytes.`,
            }),
          ),
        },
        { description: 'One part named `file`.' },
      ),
    },
  },
};

/** `GET /avatars/{file}`: the stored name of an avatar (a UUID and the extension of its type). */
export const AvatarFileParams = Type.Object({ file: Type.String({ pattern: '^[0-9a-f-]{36}\\.(png|jpg|webp|gif)$' }) });

/** The answer of `GET /avatars/{file}`: the image, in its own type. */
export const AvatarFileResponse = {
  description: 'The image',
  content: Object.fromEntries(Object.keys(AVATAR_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } as const }])),
};
