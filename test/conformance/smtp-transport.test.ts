import nodemailer from "nodemailer";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { startSmtpSink } from "../support/smtp-sink.js";
import { describeTransportConformance } from "../../adapters/testing/index.js";

// nodemailer's SMTP transport, pooled as the CLI builds it, against a real smtp-server on 127.0.0.1.
describeTransportConformance({
  name: "smtp (nodemailer pool)",
  reports: "sent",
  async create() {
    const sink = await startSmtpSink();
    const transport = nodemailerTransport(
      nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true, pool: true }),
      {
        name: "smtp",
        closeTransporter: true,
      },
    );
    return {
      transport,
      delivered: async () => sink.received.map((m) => ({ raw: m.raw, recipients: m.envelope.to })),
      async dispose() {
        await transport.close?.();
        await sink.close();
      },
    };
  },
});
