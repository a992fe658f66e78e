"""Synthetic prompt texts for the prompt samples (prompts.jsonl) of the b-* cases."""

from __future__ import annotations

import random

_POLICY = [
    "You are the customer support assistant of Northwind Outfitters, an online retailer of outdoor gear.",
    "Answer in the language of the customer and keep answers under 150 words unless the customer asks for detail.",
    "Never invent order numbers, tracking codes, prices or delivery dates; if you do not know, say so and offer to open a ticket.",
    "Orders can be cancelled free of charge until they are handed to the carrier; after that the customer must use the returns process.",
    "Returns are accepted within 30 days of delivery for unused items in their original packaging; footwear must be returned with the shoe box.",
    "Refunds are issued to the original payment method within 5 to 7 business days after the warehouse has inspected the return.",
    "Express shipping orders placed before 14:00 local time leave the warehouse the same business day.",
    "Standard shipping is free above 60 EUR; below that it costs 4.95 EUR in the EU and 9.95 EUR elsewhere.",
    "Warranty claims for tents, sleeping bags and backpacks are handled by the manufacturer; collect photos of the defect and the order number first.",
    "If the customer is angry, acknowledge the problem in one sentence before giving the solution.",
    "Do not discuss competitors, internal stock levels, supplier names or employee names.",
    "When the customer asks for a human, explain the opening hours of the support desk (Monday to Friday, 08:00 to 18:00 CET) and create a callback ticket.",
    "Gift cards cannot be refunded or exchanged for cash and do not expire.",
    "Size advice: recommend the size chart on the product page, and mention that hiking boots usually need half a size more than street shoes.",
    "Payment problems: ask the customer to retry once, then suggest another payment method; never ask for full card numbers or security codes.",
    "Format lists with short dashes, no tables, no markdown headings.",
    "End every answer with one short sentence asking whether anything else is needed.",
]

_QUESTIONS = [
    "Where is my order 88231? It was supposed to arrive yesterday.",
    "Can I still cancel the sleeping bag I ordered this morning?",
    "The zipper of my backpack broke after two weeks, what can I do?",
    "Do you ship to Norway and how much does it cost?",
    "I returned boots 10 days ago and have not seen my refund yet.",
    "Which size should I take for the Ridge hiking boots if I wear 42 in sneakers?",
    "My card was declined three times, is your site down?",
    "Can I exchange a gift card for cash?",
    "I want to talk to a real person please.",
    "Is the 3-person tent waterproof enough for Scotland in October?",
    "How long does express shipping take to Vienna?",
    "The jacket I got is the wrong colour, how do I swap it?",
]


def support_system_prompt() -> str:
    return " ".join(_POLICY)


def support_questions(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(_QUESTIONS) + f" (ticket ref {rng.randint(10000, 99999)})" for _ in range(n)]


def words(rng: random.Random, n: int, vocab: list[str] | None = None) -> str:
    vocab = vocab or (
        "the a of to in and for on with by from at as is are was be this that it its contract clause party "
        "payment term notice delivery invoice period agreement supplier customer shall may must within days "
        "written consent liability damages warranty service level report quarter revenue margin risk audit"
    ).split()
    return " ".join(rng.choice(vocab) for _ in range(n))
