// The public face of the storage module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { AvatarStore, Upload } from './avatars.js';
export { acceptUploads, emptyMultipartBody, readAvatarUpload } from './upload.js';
