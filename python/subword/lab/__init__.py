"""The tokenizer lab: a local web page (`subword lab`) and a static report (`subword report`)
over the same JSON-ready functions. `api` answers the requests, `health` checks which
tokens the encoder can produce, `corpus` measures models on a text, `server` serves the
page, `report` writes the static HTML. Nothing here reaches the network."""
