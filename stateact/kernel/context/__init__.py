"""The kernel's context management: how a loop's history becomes each request, one module per job.

    manager.py         the `ContextManager` protocol the loop calls, and `PassThrough`
    pipeline.py        `ContextPipeline`, every role's manager, and `build_context_manager`
    processors/        the view processors, one module each (output caps, image stripping, observations)
    compaction.py      the oldest turns become one summary; `apply_compaction` replays one on resume
    block_cuts.py      the largest texts and images of a view cut after an overflow
    stall_notes.py     the runtime note for an agent repeating itself or making no progress
    token_counter.py   offline token estimates of texts, images, messages and requests
    cache_prefix.py    how much of a request the provider's prompt cache can serve

This package imports nothing itself, so importing one of its modules (the token counter, from the model
providers) loads only what that module needs.
"""
