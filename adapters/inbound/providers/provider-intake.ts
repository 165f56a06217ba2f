import type { ReportSource } from "../../../src/ports/report-source.js";

/**
 * How `flagpost serve` turns its settings into one provider's ReportSource. Each provider file
 * exports one, and index.ts lists them (PROVIDER_INTAKES): the CLI reads every provider through that list, so a new
 * provider is its own file plus one entry there (docs/architecture.md, "Adding a report intake").
 */
export interface ProviderIntake {
  /** The provider's name: the ReportSource's name and the path `/v1/inbound/{name}`. */
  readonly name: string;
  /**
   * Every setting `fromSettings` reads: `flagpost --help` lists them from here, and the CLI
   * refuses to read a name not listed, so the help cannot leave one out.
   */
  readonly settings: readonly string[];
  /**
   * The source built from the named settings (`setting("FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY")`
   * answers the trimmed value, or undefined when unset or blank), or undefined when the provider's
   * settings are absent: a provider left unset answers 404. A wrong value throws an Error whose
   * message names the setting, which the CLI shows as a usage error.
   */
  fromSettings(setting: (name: string) => string | undefined): ReportSource | undefined;
}
