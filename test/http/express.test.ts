import { VARIANTS } from "../support/frameworks.js";
import { httpCases } from "./cases/index.js";

httpCases(VARIANTS.express);
httpCases(VARIANTS.expressJson);
httpCases(VARIANTS.expressPrefix);
