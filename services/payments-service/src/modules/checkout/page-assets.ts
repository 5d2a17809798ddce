import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { notFound } from '@holdfast/contracts';

/** The built page (services/payments-service/scripts/bundle-page.ts writes it): the shell and its hashed script and style. */
export interface PageFiles {
  html: string;
  files: Map<string, { type: string; body: Buffer }>;
}

export interface PageAssets {
  load(): Promise<PageFiles>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Reads the built page from `dir` once (a few kilobytes, and the WalletConnect chunk of about half a megabyte: held in memory). A service
 * whose page was not built answers 404 for it (the API works without it).
 */
export function pageAssetsFrom(dir: string): PageAssets {
  let loaded: Promise<PageFiles | null> | undefined;
  async function read(): Promise<PageFiles | null> {
    try {
      const html = await readFile(join(dir, 'index.html'), 'utf8');
      const files = new Map<string, { type: string; body: Buffer }>();
      for (const name of await readdir(dir)) {
        const type = TYPES[name.slice(name.lastIndexOf('.'))];
        if (type) files.set(name, { type, body: await readFile(join(dir, name)) });
      }
      return { html, files };
    } catch {
      return null;
    }
  }
  return {
    async load() {
      loaded ??= read();
      const page = await loaded;
      if (!page) {
        loaded = undefined;
        throw notFound('Payment page');
      }
      return page;
    },
  };
}
