/**
 * Canonical MCP bindings → server.json `remotes` (URL servers) and `packages` (published packages), with the fields
 * each binding keeps in its own `extensions.mcp` (remote headers, package extras) merged back in. A binding the
 * record cannot say exactly (an identifier that is no URL, a binding limited to some operations, a WoA tool
 * namespace, extensions of another format) is reported lost; every written entry is read back with the parser's
 * own function, so that the report names exactly the bindings that do not survive.
 */
import { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { isObject, jsonEqual, setOwn } from '../../json/values.js';
import type { Binding, JsonObject, JsonValue, McpBinding, McpPackage } from '../../model/agent.js';
import type { LoseField } from './emit-tools.js';
import { readBindings } from './parse-bindings.js';
import { CODE, DEFAULT_REMOTE_TRANSPORT, isRemoteUrl, PACKAGE_FIELDS, REMOTE_FIELDS } from './rules.js';

export interface EmittedBindings {
  remotes: JsonObject[];
  packages: JsonObject[];
}

/** The binding fields a record carries; any other (operations, security, toolNamespace, ...) is lost. */
const CARRIED_BINDING_KEYS: ReadonlySet<string> = new Set([
  'kind',
  'server',
  'transport',
  'package',
  'extensions',
]);
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

export function emitBindings(bindings: readonly Binding[], lose: LoseField): EmittedBindings {
  const out: EmittedBindings = { remotes: [], packages: [] };
  const loseBinding = (why: string): void => lose('bindings.mcp', `An MCP server.json cannot say ${why}.`);

  for (const binding of bindings) {
    if (binding.kind !== 'mcp') continue;
    const extraKeys = Object.keys(binding).filter((key) => !CARRIED_BINDING_KEYS.has(key));
    if (extraKeys.length > 0) loseBinding(`the binding fields ${extraKeys.join(', ')}`);
    const foreign = Object.keys(binding.extensions ?? {}).filter((namespace) => namespace !== 'mcp');
    if (foreign.length > 0) loseBinding(`the binding extensions of other formats (${foreign.join(', ')})`);
    const own = binding.extensions?.['mcp'];
    let written: { remotes: JsonObject[] } | { packages: JsonObject[] };
    if (binding.package !== undefined) {
      const entry = emitPackage(binding, binding.package, own, loseBinding);
      out.packages.push(entry);
      written = { packages: [entry] };
      if (binding.server !== binding.package.identifier)
        loseBinding(`a server ("${binding.server}") other than the package identifier`);
    } else if (isRemoteUrl(binding.server)) {
      const entry = emitRemote(binding, own, loseBinding);
      out.remotes.push(entry);
      written = { remotes: [entry] };
      if (binding.transport === undefined)
        loseBinding(`a remote without a transport type; it is written as ${DEFAULT_REMOTE_TRANSPORT}`);
    } else {
      loseBinding(`a server "${binding.server}" that is neither an http(s) URL nor a package`);
      continue;
    }
    if (!jsonEqual(readBack(written), binding)) {
      loseBinding(`this binding exactly (server "${binding.server}"); it reads back differently`);
    }
  }
  return out;
}

/** The binding a reader gets from one written remote or package. */
function readBack(written: JsonObject): McpBinding | undefined {
  return readBindings(new ObjectReader(written, '', new IssueCollector('MCP'), CODE))[0];
}

function emitRemote(
  binding: McpBinding,
  extra: JsonObject | undefined,
  lose: (why: string) => void,
): JsonObject {
  const remote: JsonObject = { type: binding.transport ?? DEFAULT_REMOTE_TRANSPORT, url: binding.server };
  if (extra !== undefined) mergeExtra(remote, extra, REMOTE_FIELDS, 'remote', lose);
  return remote;
}

function emitPackage(
  binding: McpBinding,
  pkg: McpPackage,
  extra: JsonObject | undefined,
  lose: (why: string) => void,
): JsonObject {
  const unknown = Object.keys(pkg).filter((key) => !CARRIED_PACKAGE_KEYS.has(key));
  if (unknown.length > 0) lose(`the package fields ${unknown.join(', ')}`);
  const out: JsonObject = { registryType: pkg.registryType };
  if (pkg.registryBaseUrl !== undefined) out['registryBaseUrl'] = pkg.registryBaseUrl;
  out['identifier'] = pkg.identifier;
  if (pkg.version !== undefined) out['version'] = pkg.version;
  if (pkg.runtimeHint !== undefined) out['runtimeHint'] = pkg.runtimeHint;

  const extraTransport = extra?.['transport'];
  if (binding.transport !== undefined) {
    const transport: JsonObject = {};
    if (extraTransport !== undefined)
      mergeExtra(transport, extraTransport, new Set(['type']), 'package transport', lose);
    transport['type'] = binding.transport;
    out['transport'] = transport;
  } else if (extraTransport !== undefined) {
    lose(`the package transport fields in extensions.mcp.transport without a transport type in the binding`);
  }
  if (pkg.runtimeArguments !== undefined) out['runtimeArguments'] = pkg.runtimeArguments;
  if (pkg.packageArguments !== undefined) out['packageArguments'] = pkg.packageArguments;
  if (pkg.environmentVariables !== undefined) out['environmentVariables'] = pkg.environmentVariables;
  if (extra !== undefined) {
    const { transport: _mergedAbove, ...others } = extra;
    mergeExtra(out, others, PACKAGE_FIELDS, 'package', lose);
  }
  return out;
}

/** Copies `extra`'s fields into `target`, except `reserved` ones, which the canonical fields write. */
function mergeExtra(
  target: JsonObject,
  extra: JsonValue,
  reserved: ReadonlySet<string>,
  what: string,
  lose: (why: string) => void,
): void {
  if (!isObject(extra)) {
    lose(`${what} extension fields that are not an object`);
    return;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (reserved.has(key)) {
      lose(`the ${what} extension field "${key}" beside the ${what}'s own "${key}"`);
      continue;
    }
    setOwn(target, key, value);
  }
}
