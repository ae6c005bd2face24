"""Scheduling: priorities, per-domain limits, warm pools, a circuit breaker, a thread-safe service.

- :class:`~assay.scheduling.policy.SchedulePolicy`: the settings (part of ``ScoreOptions``).
- :class:`~assay.scheduling.queue.JobQueue`: the worker pool's queue that applies them.
- :class:`~assay.scheduling.breaker.CircuitBreaker`: marks a failing domain degraded.
- :class:`~assay.scheduling.scheduler.Scheduler`: cache, breaker and warm pool, by ticket.
- :class:`~assay.scheduling.service.ScoringService`: a scheduler driven by its own thread,
  callable from any thread (the async API and the Ray actors use it).
"""
