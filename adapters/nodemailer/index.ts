export {
  nodemailerTransport,
  type NodemailerTransporter,
  type NodemailerTransportOptions,
} from "./nodemailer-transport.js";
export { emlFileTransport, type EmlFileTransportOptions } from "./eml-file-transport.js";
export { classifyError, isPermanentCode } from "./classify.js";
export { toMailOptions } from "./mail-options.js";
