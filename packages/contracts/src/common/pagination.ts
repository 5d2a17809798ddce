import { type Static, Type } from '@sinclair/typebox';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;
/**
 * The highest `page` any list takes (with `limit` 100, the first 100,000 rows). Deeper pages are
 * reached by narrowing the filters (`dateFrom`/`dateTo`), so OFFSET never scans without bound.
 * The HTTP kit applies it to every `page` query parameter, declared maximum or not.
 */
export const PAGE_MAX = 1000;

/** `page` (1-indexed) and `limit` (default 20, max 100), as query parameters. */
export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1, description: '1-indexed page number.' }),
  limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
});
export type PageQuery = Static<typeof PageQuery>;

export const PaginationMeta = Type.Object(
  {
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX }),
    total: Type.Integer({ minimum: 0 }),
    totalPages: Type.Integer({ minimum: 0 }),
  },
  { $id: 'PaginationMeta', examples: [{ page: 1, limit: 20, total: 42, totalPages: 3 }] },
);
export type PaginationMeta = Static<typeof PaginationMeta>;

export function paginationMeta(page: number, limit: number, total: number): PaginationMeta {
  return { page, limit, total, totalPages: total === 0 ? 0 : Math.ceil(total / limit) };
}
