/** Reads a command's input document from a file or standard input. */
import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';

export interface Input {
  text: string;
  /** How to name the input in messages: the path, or `<stdin>`. */
  label: string;
  /** A URL for provenance (`file://...`), absent for stdin. */
  sourceUrl?: string;
}

/** Largest document the CLI reads; agent descriptions are small, and this guards against reading a disk image. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export async function readInput(source: string): Promise<Input> {
  if (source === '-') return { text: await readStdin(), label: '<stdin>' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new UsageError(
      `Reading from a URL (${source}) is not supported yet; save the document to a file and pass its path, or pipe it in with "-".`,
    );
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
