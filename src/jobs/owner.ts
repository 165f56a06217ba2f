import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/** A fresh lease owner name: host, process and a random part, unique to this worker. */
export function jobOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}
