/** Reads a command's input document from a file or standard input. */
import { readFile } from 'node:fs/promises';
import { FetchError, FetchRefusedError, type SecureFetcher } from '@agentry/client';
import { UsageError } from './errors.js';
import { looksLikeUrl } from './network.js';

export interface Input {
  text: string;
  /** How to name the input in messages: the path, or `<stdin>`. */
  label: string;
  /** A URL for provenance (`file://...` or the fetched URL), absent for stdin. */
  sourceUrl?: string;
  /** For fetched documents: when, and the response's validators. */
  fetchedAt?: string;
}

/** Largest document the CLI reads; agent descriptions are small, and this guards against reading a disk image. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** Reads a file path, `-` (stdin) or, given a fetcher, an http(s) URL through the secure fetcher. */
export async function readInput(source: string, fetcher?: SecureFetcher): Promise<Input> {
  if (source === '-') return { text: await readStdin(), label: '<stdin>' };
  if (looksLikeUrl(source)) {
    if (fetcher === undefined) throw new UsageError(`This command reads files, not URLs: ${source}`);
    return readUrl(source, fetcher);
  }
  let buffer: Buffer;
  try {
    buffer = await readFile(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`No such file: ${source}`);
    if (code === 'EISDIR') throw new UsageError(`${source} is a directory; pass a JSON file.`);
    if (code === 'EACCES') throw new UsageError(`Permission denied reading ${source}`);
    throw new UsageError(`Cannot read ${source}: ${(error as Error).message}`);
  }
  if (buffer.byteLength > MAX_INPUT_BYTES) {
    throw new UsageError(
      `${source} is ${buffer.byteLength} bytes; documents over ${MAX_INPUT_BYTES} bytes are refused.`,
    );
  }
  return {
    text: buffer.toString('utf8'),
    label: source,
    sourceUrl: new URL(source, `file://${process.cwd()}/`).href,
  };
}

async function readUrl(url: string, fetcher: SecureFetcher): Promise<Input> {
  try {
    const result = await fetcher.fetch(url, {
      headers: { accept: 'application/json, application/*+json;q=0.9, */*;q=0.1' },
      maxResponseBytes: MAX_INPUT_BYTES,
    });
    if (!result.response.ok) {
      throw new UsageError(
        `GET ${result.url} answered ${result.response.status} ${result.response.statusText}.`,
      );
    }
    return {
      text: await result.response.text(),
      label: result.url,
      sourceUrl: result.url,
      fetchedAt: new Date().toISOString(),
    };
  } catch (error) {
    if (error instanceof FetchRefusedError) {
      const hint = error.allowedBy ? ` (${error.allowedBy} allows it, for local development)` : '';
      throw new UsageError(`Refused to fetch ${error.url}: ${error.message}${hint}`);
    }
    if (error instanceof FetchError) throw new UsageError(`Cannot fetch ${error.url}: ${error.message}`);
    throw error;
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(
      'Expected a document on standard input ("-"), but stdin is a terminal. Pipe a file in.',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.byteLength;
    if (size > MAX_INPUT_BYTES)
      throw new UsageError(`Standard input exceeds ${MAX_INPUT_BYTES} bytes; refused.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
