import { importWithPeers } from "../../src/optional-peer.js";
import type { emlFileTransport as EmlFileTransport } from "./eml-file-transport.js";

export type { NodemailerTransporter, NodemailerTransportOptions } from "./nodemailer-transport.js";
export type { EmlFileTransportOptions } from "./eml-file-transport.js";
export { nodemailerTransport } from "./nodemailer-transport.js";
export { classifyError, isPermanentCode } from "./classify.js";
export { toMailOptions } from "./mail-options.js";

// nodemailer is an optional peer (the files transport builds messages with it): loaded here so a
// missing install is named (see adapters/kysely/index.ts). The other modules use its types only.
const files = await importWithPeers("flagpost/nodemailer", ["nodemailer"], () => import("./eml-file-transport.js"));

export const emlFileTransport: typeof EmlFileTransport = files.emlFileTransport;
