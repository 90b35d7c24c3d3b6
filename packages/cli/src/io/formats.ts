/** Parsing the format names the CLI accepts. */
import { FORMAT_NAMES, type FormatName, trimTrailingSlash } from '@agentry/core';
import { InvalidArgumentError } from 'commander';

export function parseFormatName(value: string): FormatName {
  if ((FORMAT_NAMES as readonly string[]).includes(value)) return value as FormatName;
  throw new InvalidArgumentError(`Unknown format "${value}". Formats: ${FORMAT_NAMES.join(', ')}.`);
}

export function parseBaseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new InvalidArgumentError(
      `"${value}" is not an absolute http(s) URL (e.g. https://agents.example.com).`,
    );
  }
  return trimTrailingSlash(value);
}
