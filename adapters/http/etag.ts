/**
 * RFC 9110 If-None-Match, for every conditional GET flagpost answers (the flag snapshot, the
 * dashboard's files): "*", or a list of entity tags compared weakly (a W/ prefix on either side
 * is ignored). True means the client's copy is current: answer 304.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const wanted = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === wanted);
}
