// A list read page by page from a Resend-shaped route ({data, has_more}, `after` = the last id
// shown): its table, what shows while it is empty, "Load more" and the loading hint, and the
// rendering that keeps them in step. The page builds the rows (dom.js h(): text, never HTML).

import { h, show } from "./dom.js";
import { dataTable } from "./page-kit.js";

export class PagedList {
  items = [];
  hasMore = false;
  #fetchPage;
  #rows;
  #onError;
  #focusAdded;

  /**
   * `fetchPage({after})` reads one page; `rows(item)` gives its row (or rows); `empty` is the
   * element shown instead of an empty table; without `loadingText` the page shows its own loading
   * hint and calls replace() instead of load(). With `focusAdded`, Load more moves the focus to the
   * first link of the first row it added.
   */
  constructor({ label, columns, moreText, loadingText, empty, fetchPage, rows, onError, focusAdded = false }) {
    const { table, body } = dataTable(label, columns);
    this.table = table;
    this.body = body;
    this.empty = empty;
    this.more = h(
      "button",
      { type: "button", class: "button", hidden: true, onclick: () => this.loadMore() },
      moreText,
    );
    this.loading = loadingText ? h("p", { class: "hint", hidden: true }, loadingText) : undefined;
    this.#fetchPage = fetchPage;
    this.#rows = rows;
    this.#onError = onError;
    this.#focusAdded = focusAdded;
    /** What the page places, in this order: loading hint, empty panel, table, Load more. */
    this.parts = [this.loading, empty, table, h("div", { class: "actions" }, this.more)];
  }

  /** Reads the first page again; the loading hint (`loadingText`) shows while nothing is listed yet. */
  async load() {
    show(this.loading, this.items.length === 0);
    try {
      this.replace(await this.#fetchPage({}));
    } finally {
      show(this.loading, false);
    }
  }

  /** Lists `page` instead of what was listed. */
  replace(page) {
    this.items = page.data;
    this.hasMore = page.has_more;
    this.render();
  }

  async loadMore() {
    this.more.disabled = true;
    try {
      const page = await this.#fetchPage({ after: this.items.at(-1)?.id });
      this.items.push(...page.data);
      this.hasMore = page.has_more;
      this.render();
      if (this.#focusAdded)
        this.body.children[this.body.children.length - page.data.length]?.querySelector("a")?.focus();
    } catch (error) {
      this.#onError(error);
    } finally {
      this.more.disabled = false;
    }
  }

  /** Rows again from `items`; a control marked data-focus-key keeps the focus it had. */
  render() {
    const focused = document.activeElement?.dataset?.focusKey;
    show(this.empty, this.items.length === 0);
    show(this.table, this.items.length > 0);
    show(this.more, this.hasMore);
    this.body.replaceChildren(...this.items.flatMap((item) => this.#rows(item)));
    if (focused) this.body.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  /** Table, empty panel and Load more out of sight (a key that may not read the list). */
  hide() {
    for (const el of [this.table, this.more, this.empty]) show(el, false);
  }
}
