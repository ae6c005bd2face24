"""Where the final answer is, over a table of real answer styles, with how it was found."""

from __future__ import annotations

import pytest
from assay.verifiers.reading import locate_answer

# (response, method, text)
LOCATIONS: list[tuple[str, str, str]] = [
    # --- ported from tests/math/test_extract.py (EXTRACTIONS) ---
    ("So the area is $\\boxed{12}$.", "boxed", "12"),  # one box at the end
    ("Thus $\\boxed{\\frac{\\sqrt{2}}{2}}$", "boxed", "\\frac{\\sqrt{2}}{2}"),  # nested braces
    ("Answer is \\fbox{7}", "boxed", "7"),  # \fbox
    ("First \\boxed{3}. After checking the whole argument once more, \\boxed{4}", "boxed", "4"),
    ("so \\boxed 5", "boxed", "5"),  # bare \boxed 5
    ("<think>maybe \\boxed{4}</think>The final answer is $5$.", "final_answer", "5"),  # think
    (
        "Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.",  # Minerva
        "final_answer",
        "\\frac{3}{4}",
    ),
    ("We add them. The answer is 3.5. Done.", "answer_is", "3.5"),  # sentence end
    ("**Final Answer:** 17", "final_answer", "17"),  # bold label
    ("Work...\nAnswer: $x = 5$", "answer_colon", "x = 5"),  # Answer: line
    ("Natalia sold 48 + 24 = 72 clips.\n#### 72", "hash", "72"),  # GSM8K ####
    ("Final Answer:\n\n$$\\frac{1}{2}$$", "final_answer", "\\frac{1}{2}"),  # next line
    ("42", "whole", "42"),  # short response
    ("72 clips", "whole", "72 clips"),  # units after the number
    ("no solution", "whole", "no solution"),  # words
    ("So 2+3 = 5", "last_line", "5"),  # prose falls back to its last figure
    # math read "1,250"; the figure as written keeps its currency word (domains normalize)
    ("Adding up the costs.\nIn total she pays 1,250 dollars\n\n", "last_line", "1,250 dollars"),
    ("Answer: 7 (since 7^2 = 49).", "answer_colon", "7"),  # aside dropped
    ("The answer is not 5, it is 7.", "answer_is", "7"),  # a correction
    ("The answer is $3$ or $5$.", "answer_is", "3, 5"),  # a run of math spans
    ("So the farmer picked 42 apples in total, 15 of them on Wednesday.", "last_line", "42"),
    # math read "25"; the figure keeps its percent word
    ("That is 20/80 of the price, so it fell by 25 percent.", "last_line", "25 percent"),
    ("The remainder is 2 because 1024 = 7 * 146 + 2.", "last_line", "2"),  # justification
    ("The side is 32 / 4 = 8. (As an aside, its diagonal is about 11.31.)", "last_line", "8"),
    ("Taking square roots, $x = 2$ or $x = -2$.", "last_line", "x = 2, x = -2"),  # math run
    ("It is **odd**.", "last_line", "odd"),  # bold
    ("It is either (B) or (D).", "last_line", "(B), (D)"),  # choice run
    # --- ported from tests/finance/test_numbers.py (FINAL_ANSWERS) ---
    ('Reasoning...\n{"answer": "$5.2 million", "page": 3}', "json", "$5.2 million"),  # JSON
    ("so \\boxed{0.1414}", "boxed", "0.1414"),  # boxed
    ("Revenue grew.\nFinal answer: 12.5%", "final_answer", "12.5%"),  # marker
    ("#### 42", "hash", "42"),  # finance read "####" as a marker too
    # finance's last figure skipped the years; here a whole-line sentence gives its last value
    ("In 2024 the company earned 5,432 in 2023 dollars", "last_line", "5,432"),
    # --- GSM8K (openai/grade-school-math) ---
    (
        "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n"
        "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.\n#### 72",
        "hash",
        "72",
    ),  # calculator annotations in the working
    ("She earns 9 * 2 = $18.\n#### 18", "hash", "18"),  # money in the working
    ("#### 1,250", "hash", "1,250"),  # separators after ####
    ("The total is 5 + 7 = 12\n#### 12<|endoftext|>", "hash", "12"),  # base model's EOS left in
    # --- MATH / Minerva / Qwen-Math / DeepSeek boxed styles ---
    ("Therefore, the final answer is $\\boxed{18}$.", "boxed", "18"),  # Qwen2.5-Math
    ("The final answer is: $\\boxed{18}$", "boxed", "18"),  # Llama 3 instruct
    ("<think>\nLet me add.\n</think>\n\n**Final Answer**\n\\[\n\\boxed{18}\n\\]", "boxed", "18"),
    ("Thus the number is $\\boxed{2,\\!220}$.", "boxed", "2,\\!220"),  # MATH separators kept raw
    ("The answer is $\\boxed{10{,}000}$.", "boxed", "10{,}000"),  # braced comma
    ("So $\\boxed{\\text{(C)}}$", "boxed", "\\text{(C)}"),  # a choice in a box
    ("$\\boxed{x^2+2x+1}$", "boxed", "x^2+2x+1"),  # an expression
    (
        "\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}",
        "boxed",
        "\\left( 3, \\frac{\\pi}{2} \\right)",
    ),
    ("The answer is \\boxed{5}.<|im_end|>", "boxed", "5"),  # Qwen chat EOS
    ("The answer is \\boxed{5}<｜end▁of▁sentence｜>", "boxed", "5"),  # DeepSeek EOS
    # --- chat models without boxes ---
    ("**Answer:** $18", "answer_colon", "$18"),  # GPT-4o: money after the label
    ("The answer is $18.", "answer_is", "$18"),  # a price, not LaTeX
    ("The answer is $\\frac{1}{2}$.", "answer_is", "\\frac{1}{2}"),  # LaTeX after the phrase
    ("The correct answer is (B).", "answer_is", "(B)"),  # multiple choice
    ("The answer would be 12.", "answer_is", "12"),  # hedged phrasing
    ("Answer: 12 apples", "answer_colon", "12 apples"),  # units after the answer
    ("Answer is: 12.5%", "answer_colon", "12.5%"),  # "answer is:" (finance marker style)
    ("Final answer = 3", "final_answer", "3"),  # final answer with =
    ("FINAL ANSWER: 7", "final_answer", "7"),  # upper case
    ("**Answer:** 18<end_of_turn>", "answer_colon", "18"),  # Gemma's end-of-turn left in
    ("The answer is 48,843</s>", "answer_is", "48,843"),  # Llama 2 EOS left in
    ("The answer is 7.<|eot_id|>", "answer_is", "7"),  # Llama 3 EOS
    ("The answer is 7 [/INST]", "answer_is", "7"),  # Mistral instruction tag
    ("Answer: 3\nAnswer: 4", "answer_colon", "4"),  # the last marker wins
    ("The answer is 3. Wait, no. The final answer is 4.", "final_answer", "4"),  # correction
    ("The answer is approximately 3.14.", "answer_is", "3.14"),  # filler dropped
    # --- JSON answers ---
    ('```json\n{"answer": 18}\n```', "json", "18"),  # fenced, a number
    ('{"reasoning": "9 * 2 = 18", "answer": "18"}', "json", "18"),  # reasoning first
    ('{"answer": "A"}\nlater: {"answer": "B"}', "json", "B"),  # the last object wins
    ('{"final_answer": 0.25}', "json", "0.25"),  # final_answer key
    ('{"answer": ["Cloud", "Devices"]}', "json", '["Cloud", "Devices"]'),  # TAT-QA multi-span
    ('{"answer": "\\\\boxed{3}"}', "json", "\\boxed{3}"),  # a box inside the JSON value
    ('<think>{"answer": 1}</think>{"answer": 2}', "json", "2"),  # JSON in thinking ignored
    ('The result: {"value": 3}. So the answer is 3.', "answer_is", "3"),  # no answer key
    # --- FinQA / TAT-QA / finance prose ---
    (
        "Harbor's total assets were $656,901 thousand at December 31, 2024.",
        "last_line",
        "$656,901 thousand",
    ),  # a date after the figure
    (
        "As of December 31, 2024, total assets stood at $656,901 thousand.",
        "last_line",
        "$656,901 thousand",
    ),  # a date before it
    (
        "For the fiscal year ended December 31, 2024, net income was $48,843K.",
        "last_line",
        "$48,843K",
    ),  # K suffix after a date phrase
    (
        "Gross profit was $211,374 thousand (revenue of $514,354K less cost of revenue).",
        "last_line",
        "$211,374 thousand",
    ),  # a trailing explanation
    (
        "Net income: $58,926 thousand (2023: $66,246 thousand).",
        "last_line",
        "$58,926 thousand",
    ),  # a comparison aside
    (
        "Net change in cash: -$5,127 thousand (shown as (5,127) in the statement).",
        "last_line",
        "-$5,127 thousand",
    ),  # nested parentheses in the aside
    (
        "$28,752 thousand (down from $46,132 thousand, a decrease of 37.7%).",
        "last_line",
        "$28,752 thousand",
    ),  # aside with a percent
    (
        "Cash fell from $46,132 thousand to $28,752 thousand, so it ended 2024 at $28,752 thousand.",
        "last_line",
        "$28,752 thousand",
    ),  # a conclusion after the comma
    (
        "Operating income came to £57,445 thousand — gross profit of £133,909K less operating "
        "expenses of £76,464K.",
        "last_line",
        "£57,445 thousand",
    ),  # an em-dash explanation (finance oos2 expl-02)
    ("Revenue was 12 -- up from 9 a year ago.", "last_line", "12"),  # a double-hyphen dash
    ("Net income rose to $40,476 thousand from $26,087 thousand.", "last_line", "$40,476 thousand"),
    ("It increased to 5 from 3.", "last_line", "5"),  # "to X from Y" answers X
    ("Revenue went from 3 to 5.", "last_line", "5"),  # "from Y to X" answers X
    (
        "Revenue grew by £40,195 thousand (£311,590K − £271,395K).",
        "last_line",
        "£40,195 thousand",
    ),  # a computation over money in parentheses is working, not the answer
    ("The pair is (3 - 1, 5).", "last_line", "5"),  # bare arithmetic in parentheses stays
    (
        "Operating income peaked at €99,282 thousand, before falling to €83,023 thousand.",
        "last_line",
        "€99,282 thousand",
    ),  # ", before ..." is a trailing clause
    ("Net income was higher in 2023 ($66,246K vs $58,926K).", "last_line", "2023"),  # a year
    ("It was higher in 2024.", "last_line", "2024"),  # a year answer
    ("$1,500 thousand", "whole", "$1,500 thousand"),  # whole answer with a scale word
    ("1500", "whole", "1500"),  # a bare four-digit amount
    ("Change = 871 - 1,204 = -333 (thousand).", "last_line", "-333"),  # scale note kept apart
    ("Revenue grew 11.85% from 2018 to 2019.", "last_line", "11.85%"),  # years after a percent
    ("There are two segments.", "last_line", "two"),  # a count in words
    ("The ratio is 0.14136.", "last_line", "0.14136"),  # FinQA-style decimals
    ("Operating margin was (5.0)% in 2023.", "last_line", "(5.0)%"),  # accounting percent
    ("Revenue declined €5.0 million year over year.", "last_line", "€5.0 million"),  # sign word
    # --- money word problems (Math-Verify-style extractors pair these dollars) ---
    ("She sells them for $2 each, so she makes $18.", "last_line", "$18"),  # two prices
    ("Janet makes 9 * $2 = $18 every day at the market.", "last_line", "$18"),  # GSM8K Janet
    ("So the total is $5 + $3 = $8.", "last_line", "$8"),  # dollars around operators
    ("He has $x = 2$ apples.", "last_line", "x = 2"),  # real LaTeX
    # --- fallbacks over several lines ---
    ("The answer is 42.\n\nLet me know if you have questions!", "answer_is", "42"),
    ("Total: 42 apples.\n\nLet me know if you need anything else!", "last_figure", "42"),
]


@pytest.mark.parametrize(
    ("response", "method", "text"), LOCATIONS, ids=[row[0][:50] for row in LOCATIONS]
)
def test_locate(response: str, method: str, text: str) -> None:
    found = locate_answer(response)
    assert found is not None
    assert (found.method, found.text) == (method, text)


@pytest.mark.parametrize(
    ("response", "candidates"),
    [
        ("\\boxed{3} or \\boxed{5}", ("3", "5")),  # a hedge
        ("$\\boxed{1}$, $\\boxed{2}$", ("1", "2")),  # dollars and a comma between
        ("x = \\boxed{2} or x = \\boxed{-2}", ("2", "-2")),  # "x =" is a connective
        ("\\boxed{3} and \\boxed{3}", ("3",)),  # exact repeats collapse
        ("\\boxed{3}. Wait, let me recheck the sign of the second term... \\boxed{5}", ("5",)),
    ],
    ids=["or", "dollars-comma", "x-equals", "repeat", "far-apart"],
)
def test_box_runs(response: str, candidates: tuple[str, ...]) -> None:
    found = locate_answer(response)
    assert found is not None and found.candidates == candidates


NOTHING = [
    "",  # nothing at all
    "<think>the answer is \\boxed{4}</think>   ",  # only thinking
    "It is hard to say.\nI am not sure at all about this one.",  # no figure ("one" is a pronoun)
    "The value is \\boxed{\\frac{1}{2",  # an unclosed box
    "The distance is 360 km and the time is",  # cut off mid-sentence
    "<think>\nAdding 7 gives 3x = 27. Then dividing",  # cut off while thinking
    "Work done.\nAnswer:",  # a marker with nothing after it
    "The answer is not 5, it is",  # a phrase cut off before its answer
    "I don't know.",  # first person, no answer
    "The balance sheet is dated December 31, 2024.",  # a date is not an answer
    "<|im_end|>",  # only a special token
    "   \n\n  ",  # only whitespace
    "Yes, the statements are consistent.",  # a word answer the domain reads itself
]


@pytest.mark.parametrize("response", NOTHING, ids=[repr(r[:30]) for r in NOTHING])
def test_nothing_located(response: str) -> None:
    assert locate_answer(response) is None


def test_spans_index_the_source() -> None:
    for response, _, _ in LOCATIONS:
        found = locate_answer(response)
        assert found is not None
        if found.method != "json" and ", " not in found.text:
            assert found.source[found.start : found.end] == found.text, response


def test_marked_and_fallback_methods() -> None:
    boxed = locate_answer("so \\boxed{3}")
    fallback = locate_answer("Total: 42 apples.\n\nLet me know!")
    assert boxed is not None and boxed.marked
    assert fallback is not None and not fallback.marked


def test_json_object_is_kept() -> None:
    found = locate_answer('{"answer": "5", "page": 3, "evidence": "Net income 5"}')
    assert found is not None and found.data is not None and found.data["page"] == 3


def test_custom_and_tokenizer_special_tokens() -> None:
    class Tokenizer:
        all_special_tokens = ["<|my_eos|>"]  # noqa: RUF012 - stands in for a HF tokenizer

    found = locate_answer("The answer is 9<|my_eos|>", tokenizer=Tokenizer())
    assert found is not None and found.text == "9"
    found = locate_answer("The answer is 9[[END]]", special_tokens=["[[END]]"])
    assert found is not None and found.text == "9"


FIGURES_IN_CONTEXT = [
    # (response, role of the located figure, its cue word)
    ("The filing covers 2024 and 2023; revenue for 2021 is not disclosed.", "year", None),
    ("Cash and cash equivalents showed a net decrease of $5,127 thousand.", "value", "decrease"),
    ("2019 shows an operating loss of $134 million.", "value", "loss"),
    ("Revenue increased by $67.7 million.", "value", "increased"),
    ("The answer is 48,843</s>", "value", None),
    ("Net income was higher in fiscal 2023.", "year", None),
]


@pytest.mark.parametrize(
    ("response", "role", "cue"), FIGURES_IN_CONTEXT, ids=[r[0][:40] for r in FIGURES_IN_CONTEXT]
)
def test_located_figure_in_context(response: str, role: str, cue: str | None) -> None:
    # The located text alone ("2021", "$5,127 thousand") has lost its context; the figure
    # attached to the location keeps it, so a domain can apply its year and sign rules.
    found = locate_answer(response)
    assert found is not None and found.figure is not None
    assert found.figure.role == role
    assert (found.figure.cue.word if found.figure.cue else None) == cue
    assert found.source[found.figure.start : found.figure.end] == found.figure.text


# (response, method, text): chat-model endings where the answer sits inside a sentence
CHAT_STYLES: list[tuple[str, str, str]] = [
    ("**Final Answer**\n\nThe total is **$18**.", "final_answer", "$18"),  # prose after label
    ("Final answer: the number of apples is 42.", "final_answer", "42"),  # a sentence as answer
    ("Answer: it is the largest of the three, 17.", "answer_colon", "17"),  # prose, then figure
    ("I think the answer is 7, but I am not sure.", "answer_is", "7"),  # a trailing hedge clause
    ("The answer is 42 apples.", "answer_is", "42 apples"),  # units stay (not prose)
    ("The answer is no solution exists.", "answer_is", "no solution exists"),  # words answer
    ("The answer is 3, 4, 5.", "answer_is", "3, 4, 5"),  # a list stays whole
    ("Total revenue was $5.2 billion, up 12% from the prior year.", "last_line", "$5.2 billion"),
    ("Net income rose to $1.2 million, compared to $0.9 million.", "last_line", "$1.2 million"),
    ("EPS was $2.15, an increase of 8%.", "last_line", "$2.15"),  # "an increase" clause
    ("So x = 2, so x^2 = 4.", "last_line", "4"),  # a conclusion clause is kept
    ("### Final Answer\nThe answer is 42.", "answer_is", "42"),  # markdown heading, then phrase
    ("Step 3: 6 * 7 = 42\n\nTherefore, Janet makes $42 per day.", "last_line", "$42"),  # money
    ("So, the answer is: **42**", "answer_colon", "42"),  # bold after "answer is:"
    ("Answer: B", "answer_colon", "B"),  # a letter choice
    ("Answer: (C) 42", "answer_colon", "(C) 42"),  # choice with its value
    ("The final answer is 1,234,567.", "final_answer", "1,234,567"),  # grouped digits
    ("So the probability is $\\frac{3}{8}$.", "last_line", "\\frac{3}{8}"),  # LaTeX at the end
    ("The solutions are $x=2$ and $x=3$.", "last_line", "x=2, x=3"),  # two math spans
    ("Thus, the area is 12 square units.", "last_line", "12"),  # unit words after the figure
    ("Final answer: $12.50", "final_answer", "$12.50"),  # a price after the label
    ("The result is 3.14159...", "last_line", "3.14159"),  # an ellipsis after the figure
    ("The answer is -5.", "answer_is", "-5"),  # ASCII minus
    ("The answer is \u22125.", "answer_is", "\u22125"),  # U+2212 minus kept as written
    ("The answer is 10%.", "answer_is", "10%"),  # percent
    ("Final answer: 42\n\nExplanation: we added 40 and 2.", "final_answer", "42"),  # explanation
    ("The answer is \\(\\sqrt{2}\\).", "answer_is", "\\sqrt{2}"),  # \( \) math after a phrase
    ("Therefore the answer is $$\\frac{7}{2}$$", "answer_is", "\\frac{7}{2}"),  # display math
    ("The answer is **12**.", "answer_is", "12"),  # bold figure after the phrase
    ("The answer is: 12", "answer_colon", "12"),  # "answer is:" counts as a colon marker
]


@pytest.mark.parametrize(
    ("response", "method", "text"), CHAT_STYLES, ids=[row[0][:50] for row in CHAT_STYLES]
)
def test_chat_styles(response: str, method: str, text: str) -> None:
    found = locate_answer(response)
    assert found is not None
    assert (found.method, found.text) == (method, text)


def test_a_phrase_that_says_nothing_is_no_answer() -> None:
    # A refusal after "the answer is" has no item: the domain reads the refusal itself.
    assert locate_answer("The answer is that we cannot know.") is None
