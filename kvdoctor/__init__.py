"""kvdoctor: diagnose KV-cache trouble on a running vLLM server and prove it."""

__version__ = "0.1.0"
