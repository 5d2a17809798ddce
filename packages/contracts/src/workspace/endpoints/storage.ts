import { AvatarFileParams, AvatarFileResponse } from '../avatars.js';
import { publicEndpoint } from './define.js';

// avatars (host root)

export const getAvatar = publicEndpoint({
  method: 'GET',
  path: '/avatars/:file',
  operationId: 'getAvatar',
  tags: ['files'],
  summary: 'An uploaded avatar image',
  description: 'Avatar paths (`avatarPath` of users and workspaces) point here. The file never changes: a new upload gets a new name.',
  tier: 'high',
  params: AvatarFileParams,
  response: { 200: AvatarFileResponse },
  errors: [404],
});
