"""The Settings dialog (:mod:`.dialog`) and its pages, one module each: Ollama (:mod:`.ollama_page`, with
:mod:`.models_box` and :mod:`.pull_box`), OpenAI-compatible (:mod:`.openai_page`, with :mod:`.keys_editor`),
Generation (:mod:`.generation_page`), Tools (:mod:`.tools_page`) and Appearance (:mod:`.appearance_page`);
:mod:`.common` holds what they share."""
