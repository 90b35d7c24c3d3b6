/**
 * How a command names the registry's database in what it prints (hints, summaries, JSON lines): a PostgreSQL URL
 * without its password (`postgres://user:***@host/db`), and the flag that opens it again — `--database <url>` for a
 * URL, `--db <file>` for a SQLite file — so that a hint names a flag that takes what it prints. Output is read
 * over shoulders, pasted into issues and kept in logs: a password never appears in it.
 */
import { isPostgresDatabase } from '@agentry/registry';

/** `database` as it may be printed: a URL's password replaced by `***`. */
export function printableDatabase(database: string): string {
  if (!URL.canParse(database)) return database.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^/]*@/i, '$1***@');
  const url = new URL(database);
  if (url.password === '') return database;
  url.password = '***';
  return url.href;
}

/** The flag and value that open `database` again, as shell words: `--database <url>` or `--db <file>`. */
export function databaseFlag(database: string): string {
  if (isPostgresDatabase(database)) return `--database ${shellWord(printableDatabase(database))}`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(database) && !/^[a-z]:[\\/]/i.test(database)) {
    return `--database ${shellWord(printableDatabase(database))}`;
  }
  return `--db ${shellWord(database)}`;
}

/** `text` as one shell word: as it is when that is safe, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
