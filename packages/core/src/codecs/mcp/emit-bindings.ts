/**
 * Canonical MCP bindings → server.json `remotes` (URL servers) and `packages` (published packages), with the fields
 * kept in the agent's `extensions.mcp` (remote headers, package extras) merged back in. A binding the record cannot
 * say exactly (an identifier that is no URL, a binding limited to some operations, a WoA tool namespace) is
 * reported lost.
 */
import { isObject } from '../../json/values.js';
import type { Binding, JsonObject, JsonValue, McpBinding, McpPackage } from '../../model/agent.js';
import type { LoseField } from './emit-tools.js';
import {
  DEFAULT_REMOTE_TRANSPORT,
  isRemoteUrl,
  PACKAGE_EXTRAS,
  PACKAGE_FIELDS,
  REMOTE_EXTRAS,
  REMOTE_FIELDS,
} from './rules.js';

export interface EmittedBindings {
  remotes: JsonObject[];
  packages: JsonObject[];
}

/** The binding fields a record carries; any other (operations, security, toolNamespace, ...) is lost. */
const CARRIED_BINDING_KEYS: ReadonlySet<string> = new Set(['kind', 'server', 'transport', 'package']);
const CARRIED_PACKAGE_KEYS: ReadonlySet<string> = new Set([
  'registryType',
  'identifier',
  'version',
  'registryBaseUrl',
  'runtimeHint',
  'environmentVariables',
  'packageArguments',
  'runtimeArguments',
]);

export function emitBindings(
  bindings: readonly Binding[],
  extension: JsonObject | undefined,
  lose: LoseField,
): EmittedBindings {
  const remoteExtras = extrasOf(extension, REMOTE_EXTRAS, lose);
  const packageExtras = extrasOf(extension, PACKAGE_EXTRAS, lose);
  const used = { remotes: new Set<string>(), packages: new Set<string>() };
  const out: EmittedBindings = { remotes: [], packages: [] };
  const loseBinding = (why: string): void => lose('bindings.mcp', `An MCP server.json cannot say ${why}.`);

  for (const binding of bindings) {
    if (binding.kind !== 'mcp') continue;
    const extraKeys = Object.keys(binding).filter((key) => !CARRIED_BINDING_KEYS.has(key));
    if (extraKeys.length > 0) loseBinding(`the binding fields ${extraKeys.join(', ')}`);
    if (binding.package !== undefined) {
      out.packages.push(emitPackage(binding, binding.package, packageExtras, used.packages, lose));
      if (binding.server !== binding.package.identifier)
        loseBinding(`a server ("${binding.server}") other than the package identifier`);
    } else if (isRemoteUrl(binding.server)) {
      out.remotes.push(emitRemote(binding, remoteExtras, used.remotes, lose));
      if (binding.transport === undefined)
        loseBinding(`a remote without a transport type; it is written as ${DEFAULT_REMOTE_TRANSPORT}`);
    } else {
      loseBinding(`a server "${binding.server}" that is neither an http(s) URL nor a package`);
    }
  }
  reportUnused(remoteExtras, used.remotes, REMOTE_EXTRAS, lose);
  reportUnused(packageExtras, used.packages, PACKAGE_EXTRAS, lose);
  return out;
}

function emitRemote(binding: McpBinding, extras: JsonObject, used: Set<string>, lose: LoseField): JsonObject {
  const remote: JsonObject = { type: binding.transport ?? DEFAULT_REMOTE_TRANSPORT, url: binding.server };
  const extra = extras[binding.server];
  if (extra !== undefined) {
    used.add(binding.server);
    mergeExtra(remote, extra, REMOTE_FIELDS, `${REMOTE_EXTRAS}["${binding.server}"]`, lose);
  }
  return remote;
}

function emitPackage(
  binding: McpBinding,
  pkg: McpPackage,
  extras: JsonObject,
  used: Set<string>,
  lose: LoseField,
): JsonObject {
  const unknown = Object.keys(pkg).filter((key) => !CARRIED_PACKAGE_KEYS.has(key));
  if (unknown.length > 0) lose('bindings.mcp', `An MCP server.json package has no ${unknown.join(', ')}.`);
  const out: JsonObject = { registryType: pkg.registryType };
  if (pkg.registryBaseUrl !== undefined) out['registryBaseUrl'] = pkg.registryBaseUrl;
  out['identifier'] = pkg.identifier;
  if (pkg.version !== undefined) out['version'] = pkg.version;
  if (pkg.runtimeHint !== undefined) out['runtimeHint'] = pkg.runtimeHint;

  const where = `${PACKAGE_EXTRAS}["${pkg.identifier}"]`;
  const extra = extras[pkg.identifier];
  if (extra !== undefined) used.add(pkg.identifier);
  const extraTransport = isObject(extra) ? extra['transport'] : undefined;
  if (binding.transport !== undefined) {
    const transport: JsonObject = {};
    if (extraTransport !== undefined)
      mergeExtra(transport, extraTransport, new Set(['type']), `${where}.transport`, lose);
    transport['type'] = binding.transport;
    out['transport'] = transport;
  } else if (extraTransport !== undefined) {
    lose('extensions.mcp', `${where}.transport is not written: the binding names no transport type.`);
  }
  if (pkg.runtimeArguments !== undefined) out['runtimeArguments'] = pkg.runtimeArguments;
  if (pkg.packageArguments !== undefined) out['packageArguments'] = pkg.packageArguments;
  if (pkg.environmentVariables !== undefined) out['environmentVariables'] = pkg.environmentVariables;
  if (isObject(extra)) {
    const { transport: _mergedAbove, ...others } = extra;
    mergeExtra(out, others, PACKAGE_FIELDS, where, lose);
  } else if (extra !== undefined) {
    mergeExtra(out, extra, PACKAGE_FIELDS, where, lose);
  }
  return out;
}

/** The object of extras under `key`, or an empty one (reporting a value of the wrong shape as lost). */
function extrasOf(extension: JsonObject | undefined, key: string, lose: LoseField): JsonObject {
  const value = extension?.[key];
  if (value === undefined) return {};
  if (isObject(value)) return value;
  lose('extensions.mcp', `extensions.mcp.${key} is not an object, so it is not written.`);
  return {};
}

/** Copies `extra`'s fields into `target`, except `reserved` ones, which the canonical fields write. */
function mergeExtra(
  target: JsonObject,
  extra: JsonValue,
  reserved: ReadonlySet<string>,
  where: string,
  lose: LoseField,
): void {
  if (!isObject(extra)) {
    lose('extensions.mcp', `extensions.mcp.${where} is not an object, so it is not written.`);
    return;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (reserved.has(key)) {
      lose(
        'extensions.mcp',
        `extensions.mcp.${where}.${key} would overwrite a field written from the binding.`,
      );
      continue;
    }
    target[key] = value;
  }
}

function reportUnused(extras: JsonObject, used: ReadonlySet<string>, key: string, lose: LoseField): void {
  for (const name of Object.keys(extras)) {
    if (!used.has(name))
      lose(
        'extensions.mcp',
        `extensions.mcp.${key}["${name}"] matches no MCP binding, so it is not written.`,
      );
  }
}
