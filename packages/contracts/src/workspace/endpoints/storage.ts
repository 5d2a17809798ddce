import { AvatarFileParams, AvatarFileResponse } from '../avatars.js';
import { resource } from './define.js';

// avatars (host root)

const endpoint = resource({ tags: ['files'] });

export const getAvatar = endpoint('GET /avatars/:file', {
  operationId: 'getAvatar',
  summary: 'An uploaded avatar image',
  description: 'Avatar paths (`avatarPath` of users and workspaces) point here. The file never changes: a new upload gets a new name.',
  access: 'public',
  tier: 'high',
  params: AvatarFileParams,
  response: { 200: AvatarFileResponse },
  errors: [404],
});
