/** One page of a list, as the API answers it. */
export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

/**
 * A list over every page: `for await (const item of list)` fetches page after page as it goes.
 * `firstPage()` fetches only the first; `toArray()` all of them (mind the size).
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (page: number) => Promise<Page<T>>,
    private readonly startPage = 1,
  ) {}

  firstPage(): Promise<Page<T>> {
    return this.fetchPage(this.startPage);
  }

  async *pages(): AsyncGenerator<Page<T>> {
    for (let page = this.startPage; ; page += 1) {
      const answer = await this.fetchPage(page);
      yield answer;
      if (answer.data.length === 0 || page >= answer.pagination.totalPages) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** A list the API answers in one go (no pages), with the same interface. */
export function singlePage<T>(fetchAll: () => Promise<T[]>): PageIterator<T> {
  return new PageIterator(async () => {
    const data = await fetchAll();
    return { data, pagination: { page: 1, limit: data.length, total: data.length, totalPages: 1 } };
  });
}
