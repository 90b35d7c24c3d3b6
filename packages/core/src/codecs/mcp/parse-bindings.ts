/**
 * A server.json record's `remotes` and `packages` → canonical MCP bindings. What a remote or package says beyond
 * the binding (remote headers, a package transport's URL and headers, `fileSha256`, unknown package fields) is kept
 * in the binding's own `extensions.mcp`, in the shape of the remote or package it came from: a remote's
 * `{ headers }`, a package's `{ fileSha256, transport: { url, headers } }`.
 */
import { joinPointer } from '../../json/pointer.js';
import { describeType, ObjectReader } from '../../json/reader.js';
import { isObject } from '../../json/values.js';
import type { JsonObject, McpBinding, McpPackage } from '../../model/agent.js';
import {
  CODE,
  isRemoteUrl,
  PACKAGE_FIELDS,
  PACKAGE_LIST_FIELDS,
  REMOTE_FIELDS,
  REMOTE_TRANSPORT_TYPES,
  SECTION,
  TRANSPORT_TYPES,
} from './rules.js';

export function readBindings(server: ObjectReader): McpBinding[] {
  const out: McpBinding[] = [];
  readRemotes(server, out);
  readPackages(server, out);
  return out;
}

function readRemotes(server: ObjectReader, out: McpBinding[]): void {
  const items = server.array('remotes', { section: SECTION.remote });
  if (items === undefined) return;
  const remotesAt = server.at('remotes');
  items.forEach((item, index) => {
    const pointer = joinPointer(remotesAt, index);
    const remote = ObjectReader.of(item, pointer, server.issues, CODE, 'A remote', SECTION.remote);
    if (remote === undefined) return;
    const type = remote.text('type', { required: true, section: SECTION.remote });
    const url = remote.text('url', { required: true, section: SECTION.remote });
    if (type !== undefined && type !== '') checkTransportType(remote, 'type', type, REMOTE_TRANSPORT_TYPES);
    if (url === undefined || url === '') return;
    if (!isRemoteUrl(url)) {
      remote.issues.error(
        remote.at('url'),
        `${CODE}.remote.url`,
        `Remote url "${url}" must be an absolute http(s) URL, such as https://mcp.example.com/mcp.`,
        SECTION.remote,
      );
      return;
    }
    const binding: McpBinding = { kind: 'mcp', server: url };
    if (type !== undefined && type !== '') binding.transport = type;
    const extra = remote.rest(REMOTE_FIELDS);
    if (extra !== undefined) binding.extensions = { mcp: extra };
    out.push(binding);
  });
}

function readPackages(server: ObjectReader, out: McpBinding[]): void {
  const items = server.array('packages', { section: SECTION.package });
  if (items === undefined) return;
  const packagesAt = server.at('packages');
  items.forEach((item, index) => {
    const pointer = joinPointer(packagesAt, index);
    const pkg = ObjectReader.of(item, pointer, server.issues, CODE, 'A package', SECTION.package);
    if (pkg === undefined) return;
    const read = readPackage(pkg);
    if (read === undefined) return;
    const binding: McpBinding = { kind: 'mcp', server: read.package.identifier };
    if (read.transport !== undefined) binding.transport = read.transport;
    binding.package = read.package;
    if (read.extra !== undefined) binding.extensions = { mcp: read.extra };
    out.push(binding);
  });
}

interface PackageRead {
  package: McpPackage;
  transport?: string;
  extra?: JsonObject;
}

function readPackage(pkg: ObjectReader): PackageRead | undefined {
  const section = SECTION.package;
  const registryType = pkg.text('registryType', { required: true, section });
  const identifier = pkg.text('identifier', { required: true, section });
  const version = pkg.string('version', { section });
  const registryBaseUrl = pkg.string('registryBaseUrl', { section });
  const runtimeHint = pkg.string('runtimeHint', { section });
  const lists = PACKAGE_LIST_FIELDS.map((key) => [key, readObjectList(pkg, key)] as const);
  const transport = readPackageTransport(pkg);
  if (registryType === undefined || registryType === '' || identifier === undefined || identifier === '')
    return undefined;

  const canonical: McpPackage = { registryType, identifier };
  if (version !== undefined) canonical.version = version;
  if (registryBaseUrl !== undefined) canonical.registryBaseUrl = registryBaseUrl;
  if (runtimeHint !== undefined) canonical.runtimeHint = runtimeHint;
  for (const [key, list] of lists) if (list !== undefined) canonical[key] = list;

  let extra = pkg.rest(PACKAGE_FIELDS);
  if (transport.extra !== undefined) extra = { ...extra, transport: transport.extra };
  const read: PackageRead = { package: canonical };
  if (transport.type !== undefined) read.transport = transport.type;
  if (extra !== undefined) read.extra = extra;
  return read;
}

/** The package transport's `type`, and its other fields (`url`, `headers`) for the extras. */
function readPackageTransport(pkg: ObjectReader): { type?: string; extra?: JsonObject } {
  if (!pkg.has('transport')) {
    pkg.issues.warning(
      pkg.at('transport'),
      `${CODE}.package.transport`,
      'A package should say how to talk to the server it runs: add "transport": {"type": "stdio"} (or streamable-http, sse).',
      SECTION.package,
    );
    return {};
  }
  const transport = pkg.child('transport', { section: SECTION.transport });
  if (transport === undefined) return {};
  const type = transport.text('type', { required: true, section: SECTION.transport });
  if (type !== undefined && type !== '') checkTransportType(transport, 'type', type, TRANSPORT_TYPES);
  const extra = transport.rest(['type']);
  return type === undefined || type === '' ? {} : extra === undefined ? { type } : { type, extra };
}

function checkTransportType(
  reader: ObjectReader,
  key: string,
  type: string,
  allowed: ReadonlySet<string>,
): void {
  if (allowed.has(type)) return;
  reader.issues.warning(
    reader.at(key),
    `${CODE}.transport.unknown`,
    `Transport type "${type}" is not one of ${[...allowed].join(', ')}; clients may not know how to connect.`,
    SECTION.transport,
  );
}

/** An array of objects (arguments, environment variables); other items are reported and skipped. */
function readObjectList(pkg: ObjectReader, key: string): JsonObject[] | undefined {
  const items = pkg.array(key, { section: SECTION.package });
  if (items === undefined) return undefined;
  const out: JsonObject[] = [];
  items.forEach((item, index) => {
    if (isObject(item)) out.push(item);
    else
      pkg.issues.error(
        joinPointer(pkg.at(key), index),
        `${CODE}.type`,
        `Items of "${key}" must be objects, got ${describeType(item)}.`,
        SECTION.package,
      );
  });
  return out;
}
