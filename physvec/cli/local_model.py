"""`physvec local-model serve | path`: a language model on this machine, offline, for `reproduce --model openai:NAME`.

Every `physvec` command builds this parser, so xllamacpp is imported by `serve` only."""

from __future__ import annotations

import argparse
import threading

from physvec.agents.local_model import DEFAULT_CONTEXT, DEFAULT_PORT, LOCAL_MODELS, LocalModelMissing, local_model

EXIT_BAD_INPUT = 2


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("local-model", help="serve a model from PyPI packages on loopback (llama.cpp)")
    subcommands = parser.add_subparsers(dest="local_model_command", required=True)
    serve = subcommands.add_parser("serve", help="start llama.cpp's OpenAI-compatible server; Ctrl-C stops it")
    path = subcommands.add_parser("path", help="print the model's GGUF file (assembling its parts once)")
    for command in (serve, path):
        command.add_argument("name", nargs="?", default="qwen2.5-coder-1.5b", choices=list(LOCAL_MODELS),
                             help="default: qwen2.5-coder-1.5b")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT})")
    serve.add_argument("--context", type=int, default=DEFAULT_CONTEXT, metavar="TOKENS",
                       help=f"context length the server allocates (default {DEFAULT_CONTEXT})")
    serve.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")


def run(arguments: argparse.Namespace) -> int:
    from physvec.agents.local_model import serve

    model = local_model(arguments.name)
    try:
        if arguments.local_model_command == "path":
            print(model.gguf())
            return 0
        with serve(model, arguments.port, arguments.context, arguments.threads) as server:
            print(f"serving {model.name} at {server.base_url} (context {server.context_tokens} tokens); "
                  f"Ctrl-C stops it. In another shell:\n"
                  f"    reproduce TASK.json --model openai:{model.name} --base-url {server.base_url} --timeout none")
            threading.Event().wait()
    except LocalModelMissing as error:
        print(f"physvec local-model: {error}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("stopped")
    return 0
