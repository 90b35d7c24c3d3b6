/**
 * The process an MCP stdio binding starts. A binding published as a package (MCP Registry `server.json`:
 * `registryType`, `identifier`, `version`, `runtimeHint`, runtime and package arguments, environment variables) is
 * started the way that registry describes (`npx` for npm, `uvx` for PyPI, `docker run` for OCI); otherwise the
 * binding's `server` is a command line, split on whitespace (no shell, no quoting).
 */
import type { JsonObject, McpBinding, McpPackage } from '@agentry/core';

export interface StdioCommand {
  command: string;
  args: string[];
  /** Variables the package declares, added to the SDK's safe default environment. */
  env: Record<string, string>;
}

export function stdioCommandFor(binding: McpBinding): StdioCommand | undefined {
  if (binding.package !== undefined) return packageCommand(binding.package);
  const words = binding.server.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || /^[a-z][a-z0-9+.-]*:\/\//i.test(binding.server)) return undefined;
  return { command: words[0]!, args: words.slice(1), env: {} };
}

function packageCommand(pkg: McpPackage): StdioCommand | undefined {
  const runtimeArgs = argumentsOf(pkg.runtimeArguments);
  const packageArgs = argumentsOf(pkg.packageArguments);
  const env = environmentOf(pkg.environmentVariables);
  const type = pkg.registryType.toLowerCase();
  const versioned = (separator: string): string =>
    pkg.version === undefined ? pkg.identifier : `${pkg.identifier}${separator}${pkg.version}`;
  if (type === 'npm') {
    const command = pkg.runtimeHint ?? 'npx';
    const yes =
      command === 'npx' && !runtimeArgs.includes('-y') && !runtimeArgs.includes('--yes') ? ['-y'] : [];
    return { command, args: [...yes, ...runtimeArgs, versioned('@'), ...packageArgs], env };
  }
  if (type === 'pypi') {
    return {
      command: pkg.runtimeHint ?? 'uvx',
      args: [...runtimeArgs, versioned('=='), ...packageArgs],
      env,
    };
  }
  if (type === 'oci') {
    const image = pkg.identifier.includes(':') || pkg.version === undefined ? pkg.identifier : versioned(':');
    const envArgs = Object.keys(env).flatMap((name) => ['-e', name]);
    return {
      command: pkg.runtimeHint ?? 'docker',
      args: ['run', '-i', '--rm', ...envArgs, ...runtimeArgs, image, ...packageArgs],
      env,
    };
  }
  if (pkg.runtimeHint !== undefined) {
    return { command: pkg.runtimeHint, args: [...runtimeArgs, pkg.identifier, ...packageArgs], env };
  }
  return undefined;
}

/** `{type: "positional", value}` and `{type: "named", name, value}` (value falling back to `default`). */
function argumentsOf(list: JsonObject[] | undefined): string[] {
  const out: string[] = [];
  for (const argument of list ?? []) {
    const value = argument['value'] ?? argument['default'];
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    if (argument['type'] === 'named' && typeof argument['name'] === 'string') {
      out.push(argument['name']);
      if (text !== undefined) out.push(text);
    } else if (text !== undefined) {
      out.push(text);
    }
  }
  return out;
}

function environmentOf(list: JsonObject[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of list ?? []) {
    const value = variable['value'] ?? variable['default'];
    if (typeof variable['name'] === 'string' && typeof value === 'string') env[variable['name']] = value;
  }
  return env;
}
