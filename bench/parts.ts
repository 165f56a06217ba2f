import { emailsBench } from "./emails.js";
import { signingBench } from "./emails-signing.js";
import { eventsPart } from "./events.js";
import { experimentsBench } from "./experiments.js";
import { flagsBench } from "./flags.js";
import { httpBench } from "./http.js";
import { ofrepBench } from "./ofrep.js";
import type { BenchPart } from "./lib/part.js";
import { propagationBench } from "./propagation.js";
import { scalingBench } from "./scaling.js";
import { webhooksBench } from "./webhooks.js";

/** Every benchmark part, in the order `npm run bench` runs them. Each file adds itself here. */
export const PARTS: BenchPart[] = [
  flagsBench,
  httpBench,
  ofrepBench,
  eventsPart,
  emailsBench,
  signingBench,
  webhooksBench,
  propagationBench,
  experimentsBench,
  scalingBench,
];
