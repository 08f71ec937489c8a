"""``wisp models`` (``command.py``) and its verbs: ``check.py``, ``disabled.py`` (enable and
disable), ``pull.py`` (Ollama) and ``pull_hf.py`` (the Hugging Face Hub); the table it prints
(``table.py``), the checksums of local GGUF files (``files.py``) and the audited session its verbs
share (``session.py``)."""
