import multipart from '@fastify/multipart';
import { AppError, AVATAR_MAX_BYTES, validationError } from '@holdfast/contracts';
import type { HttpApp } from '@holdfast/http-kit';
import type { FastifyRequest } from 'fastify';
import type { Upload } from './avatars.js';

/** Accepts `multipart/form-data` on the routes of this plugin scope (the avatar uploads). */
export async function acceptUploads(app: HttpApp): Promise<void> {
  await app.register(multipart, { limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 0, parts: 1 } });
}

/** `preValidation` of upload routes: the multipart body is read later (readAvatarUpload), so the schema sees `{}`. */
export async function emptyMultipartBody(request: FastifyRequest): Promise<void> {
  if (request.isMultipart()) request.body ??= {};
}

/** Reads the one `file` part of a multipart request (413 past the size limit). */
export async function readAvatarUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the image as multipart/form-data with one part named "file"');
  }
  try {
    const part = await request.file();
    if (!part) throw validationError([{ field: 'file', reason: 'is required' }]);
    if (part.fieldname !== 'file') {
      throw validationError([{ field: part.fieldname, reason: 'is not a known parameter; name the part "file"' }]);
    }
    const data = await part.toBuffer();
    return { data, declaredType: part.mimetype };
  } catch (error) {
    throw multipartError(error);
  }
}

/**
 * What the multipart parser throws, as the client's error: its limits are 413, anything else it
 * cannot read (no boundary, a truncated or malformed part) is a 400 naming the body.
 */
function multipartError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const { statusCode, code } = error as { statusCode?: unknown; code?: unknown };
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('PAYLOAD_TOO_LARGE', `The image is larger than ${AVATAR_MAX_BYTES} bytes`, { maxBytes: AVATAR_MAX_BYTES });
  }
  if (statusCode === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Send exactly one part, named "file"');
  return validationError([{ field: 'body', reason: 'is not a readable multipart/form-data body with one part named "file"' }]);
}
