import { randomBytes } from 'node:crypto';

const MAX_BASE = 60;

/** `"Café Acme, Inc."` -> `"cafe-acme-inc"`; `"workspace"` when nothing usable is left. Always matches `^[a-z0-9-]+$`. */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE)
    .replace(/-+$/g, '');
  return slug || 'workspace';
}

/** The generated slug with a short random suffix, for when the plain one is taken. */
export function slugWithSuffix(base: string): string {
  return `${base}-${randomBytes(3).toString('hex')}`;
}
