/** Every ```ts block of a Markdown file: each is a module of its own. */
export function tsBlocks(markdown: string): string[] {
  return fencedBlocks(markdown, "ts");
}

/** Every fenced block of one language, in the order written. */
export function fencedBlocks(markdown: string, language: string): string[] {
  return blocksInOrder(markdown)
    .filter((b) => b.language === language)
    .map((b) => b.code);
}

/** Every fenced block with its language, in the order written. */
export function blocksInOrder(markdown: string): { language: string; code: string }[] {
  return [...markdown.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1]!, code: m[2]! }));
}

/** The text under a `## title` heading, up to the next heading of that level or higher. */
export function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no section "## ${title}"`);
  const rest = markdown.slice(start + title.length + 5);
  const end = rest.search(/^#{1,2} /m);
  return end < 0 ? rest : rest.slice(0, end);
}
