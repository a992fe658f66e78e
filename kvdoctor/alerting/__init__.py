"""Alert-triggered diagnosis: Alertmanager webhooks in, a report on the ticket out.

Modules (each one job, wired by ``kvdoctor serve`` and ``kvdoctor investigate``):

* :mod:`~kvdoctor.alerting.payload` — the webhook payload (version 4), parsed and checked; a
  malformed one is a :class:`PayloadError` with the reason the receiver answers in its 400;
* :mod:`~kvdoctor.alerting.state` — SQLite state under ``--state-dir``: deduplication by group
  fingerprint, the queue of jobs, per-replica rate limits, what each sink already received,
  so a restart neither loses nor repeats an investigation;
* :mod:`~kvdoctor.alerting.resolve` — alert labels → replica (Prometheus target metadata, or a
  mapping file);
* :mod:`~kvdoctor.alerting.investigate` — one job: the Prometheus history before ``startsAt``
  (the existing fleet capture), an optional short live capture with the experiments the
  configuration allows, the report per group, and on resolve the ``compare`` of before/after;
* :mod:`~kvdoctor.alerting.sinks` — the summary posted to a generic webhook, a GitHub or GitLab
  issue comment, a Slack message;
* :mod:`~kvdoctor.alerting.service` and :mod:`~kvdoctor.alerting.server` — the worker pool
  (concurrency cap, bounded queue) and the HTTP receiver (``/alerts``, ``/healthz``,
  ``/metrics``).
"""
