/** Options shared by the commands that resolve targets: static maps, scheme, version. */
import { loadStaticMap, type ResolveOptions, StaticMapError } from '@agentry/client';
import { type Command, InvalidArgumentError } from 'commander';
import { UsageError } from './errors.js';

export interface TargetOptions {
  staticMap?: string;
  scheme?: 'https' | 'http';
  webfinger?: boolean;
  version?: string;
}

export function addTargetOptions(command: Command): Command {
  return command
    .option(
      '--static-map <file>',
      'a JSON file mapping agent:// URIs or authorities to document URLs (also AGENTRY_STATIC_MAP)',
    )
    .option(
      '--scheme <scheme>',
      'scheme for agent:// lookups: https (default), or http for local development with --allow-http',
      (value: string) => {
        if (value !== 'https' && value !== 'http') throw new InvalidArgumentError('must be https or http');
        return value;
      },
    )
    .option('--webfinger', 'also look agents up through WebFinger (RFC 7033)')
    .option(
      '--version <version>',
      'ask for this agent version (agent:// supportedVersions, X-Agent-Version)',
    );
}

/** The resolve options for a command's flags; reads the static map file once. */
export async function resolveOptions(options: TargetOptions): Promise<Omit<ResolveOptions, 'fetcher'>> {
  const out: Omit<ResolveOptions, 'fetcher'> = {};
  const mapFile = options.staticMap ?? process.env['AGENTRY_STATIC_MAP'];
  if (mapFile) {
    try {
      out.staticMap = await loadStaticMap(mapFile);
    } catch (error) {
      if (error instanceof StaticMapError) throw new UsageError(error.message);
      throw error;
    }
  }
  if (options.scheme) out.scheme = options.scheme;
  if (options.webfinger) out.webfinger = true;
  if (options.version) out.version = options.version;
  return out;
}
