// The /v1 routes of a flag's history, scheduled changes and evaluation insights (docs/api.md
// "Flag history", "Flag schedules", "Flag insights"), called with the pasted key as api.js does.

import { nextCursor, request } from "./api.js";

const flagPath = (key) => `/flags/${encodeURIComponent(key)}`;

export const flagApi = {
  /** One page of the flag's history, newest first; `next` is the cursor of the older page. */
  async history(key, { cursor, limit = 50 } = {}) {
    const { data, response } = await request("GET", `${flagPath(key)}/history`, {
      query: { limit: String(limit), cursor },
    });
    return { entries: data, next: nextCursor(response.headers.get("link")) };
  },
  /** One page of the flag's scheduled changes, by `at`. */
  async schedules(key, { cursor, limit = 100 } = {}) {
    const { data, response } = await request("GET", `${flagPath(key)}/schedules`, {
      query: { limit: String(limit), cursor },
    });
    return { schedules: data, next: nextCursor(response.headers.get("link")) };
  },
  createSchedule: async (key, schedule) =>
    (await request("POST", `${flagPath(key)}/schedules`, { body: schedule })).data,
  deleteSchedule: async (key, id) => {
    await request("DELETE", `${flagPath(key)}/schedules/${encodeURIComponent(id)}`);
  },
  /** Hourly evaluation counts of the hours starting in [from, to), and whether the flag is stale. */
  insights: async (key, { from, to }) =>
    (await request("GET", `${flagPath(key)}/insights`, { query: { from, to } })).data,
};
