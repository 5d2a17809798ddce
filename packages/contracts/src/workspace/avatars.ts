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
