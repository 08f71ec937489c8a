"""Records the embedded model's raw replies for the corpus, by hand: ``python -m
tests.models.text_calls.record``. Prints one JSON line a prompt: the prompt and the raw reply.

SmolLM2-135M's chat template drops tools, so they are rendered into the system prompt (as a
Hermes-style template would, or as its model card says); decoding is greedy, so a run gives
the same replies again.
"""

from __future__ import annotations

import json
import sys

from llama_cpp import Llama

from tests.models.conftest import smollm2_gguf

TOOLS = [
    {"name": "current_date", "description": "Today's date and time.", "parameters": {}},
    {
        "name": "read_file",
        "description": "Read a text file, e.g. README.md.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "run_command",
        "description": "Run a shell command, e.g. ls, git status, wc -l.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    },
]
_LISTED = "\n".join(json.dumps(tool) for tool in TOOLS)
SYSTEMS = {
    # What a Hermes-style template puts in the system prompt.
    "hermes": (
        f"You are a helpful assistant with access to these tools:\n{_LISTED}\n"
        "To call a tool, reply with <tool_call>"
        '[{"name": "TOOL", "arguments": {...}}]</tool_call> and nothing else.'
    ),
    # The function-calling prompt SmolLM2's model card gives.
    "smollm2": (
        "You are an expert in composing functions. You are given a question and a set of "
        "possible functions. Based on the question, you will need to make one or more "
        "function/tool calls to achieve the purpose. If none of the functions can be used, "
        "point it out and refuse to answer.\n\n"
        f"You have access to the following tools:\n<tools>{_LISTED}</tools>\n\n"
        "The output MUST strictly adhere to the following format, and NO other text MUST be "
        "included.\nThe example format is as follows. Please make sure the parameter type is "
        "correct. If no function call is needed, please make the tool calls an empty list "
        "'[]'.\n<tool_call>[\n"
        '{"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}},\n'
        "... (more tool calls as required)\n]</tool_call>"
    ),
}
PROMPTS = [
    "What is today's date?",
    "Read README.md and tell me what it holds.",
    "List the files in this folder.",
    "How many lines does setup.py have?",
    "Which git branch am I on?",
    "Hello, who are you?",
    "What is 2 + 2?",
    "Show me an example of a JSON object describing a person.",
    "Run the tests.",
    "Find the string TODO in the source files.",
]


def main() -> None:
    """``python -m tests.models.text_calls.record [hermes|smollm2]``: one JSON line a prompt."""
    style = sys.argv[1] if len(sys.argv) > 1 else "hermes"
    model = Llama(str(smollm2_gguf()), n_ctx=2048, n_threads=1, seed=1, verbose=False)
    for prompt in PROMPTS:
        messages = [
            {"role": "system", "content": SYSTEMS[style]},
            {"role": "user", "content": prompt},
        ]
        reply = model.create_chat_completion(messages, temperature=0.0, max_tokens=120)
        raw = reply["choices"][0]["message"]["content"] or ""
        print(json.dumps({"style": style, "prompt": prompt, "raw": raw}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
