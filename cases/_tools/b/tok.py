"""A stand-in tokenizer for the DEBUG request-log case.

It keeps the real Qwen2/Qwen3 ids of the chat-template special tokens, of "system"/"user" and of
the newline and the ten digits (Qwen tokenizes digits one by one); every other piece gets a
stable id from a hash. Real ids would differ, but not the position where two prompts diverge.
"""

from __future__ import annotations

import hashlib
import re

SPECIAL = {"<|im_start|>": 151644, "<|im_end|>": 151645}
FIXED = {"system": 8948, "user": 872, "assistant": 77091, "\n": 198, "\n\n": 271}
_PIECE = re.compile(r"<\|im_start\|>|<\|im_end\|>|\n\n|\n|[0-9]| ?[A-Za-z]+|\s+|[^\sA-Za-z0-9]")


def encode(text: str) -> list[int]:
    ids = []
    for p in _PIECE.findall(text):
        if p in SPECIAL:
            ids.append(SPECIAL[p])
        elif p in FIXED:
            ids.append(FIXED[p])
        elif p.isdigit():
            ids.append(15 + int(p))
        else:
            h = int(hashlib.md5(p.encode()).hexdigest()[:8], 16)
            ids.append(1000 + h % 148000)
    return ids
