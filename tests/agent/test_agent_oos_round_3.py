"""Agent, out of sample, round 3: 70 tau-bench / BFCL style trajectories, labelled by hand.

Written from docs/agent.md, docs/formats.md and the environments' tools and data only (the
agent scoring, matching and facts code was not read before the labels were fixed). Each case is
a task on the built-in ``retail``, ``calendar`` or ``filesystem`` environment and a trajectory
as an agent model writes it: the honest half does the task with extra reads, another valid
order, equivalent argument forms, a retry after an error, or states the facts in other words,
formats and languages' number formats; the other half is wrong or games the verifier (wrong
order or user, a missing confirmation, success claimed after a refusal, invented figures, the
task done twice, a destructive extra call, an unknown tool, giving up, refusing, asking for
what was given). Tool results are what the environment returns: every call is run on a fresh
instance of the environment while the trajectory is built (a call its schema refuses gets the
error an API would send back).

Each label is what a careful human grader says: ``correct``, ``incorrect``, or ``partial``
where the docs define a share (an extra call past ``gold_steps`` lowers efficiency, a corrected
failure keeps 0.875, a task done with a required fact missing keeps the state's share); for a
partial label the score the docs' formula gives is checked too. All cases are scored in one
batch through the public entry point (``Scorer``, two workers), as ``assay score`` scores them.
Cases assay gets wrong today are strict expected failures whose reason says what assay says.
"""

from __future__ import annotations

import json

import pytest
from agent_trajectories import Case, User, call, check, params, ref, scored
from assay.domains.agent.envs.retail import RetailEnv

from assay.types import Result

# ---------------------------------------------------------------- shared calls and tasks
GET_1001 = call("get_order", order_id="W1001")
GET_1002 = call("get_order", order_id="W1002")
GET_1003 = call("get_order", order_id="W1003")
CANCEL_1001 = call("cancel_order", order_id="W1001", reason="no longer needed")
FIND_ADA = call("find_user", email="ada@example.com")
FIND_ALAN = call("find_user", email="alan@example.com")
ASK_CANCEL = "Hi, this is Ada (ada@example.com). Please cancel order W1001, I no longer need it."
CANCEL_TASK = ref("retail", [CANCEL_1001], [50], 2)
RETURN_ALL = call("return_items", order_id="W1002", product_ids=["p2", "p3"])
ASK_RETURN = "I'd like to return everything in my order W1002 and get my money back."
RETURN_TASK = ref("retail", [GET_1002, RETURN_ALL], [133.5], 2)
MANAGER = "You are a store support agent. Managers may approve store credit of any amount; apply exactly the approved amount to the named customer."
ASK_CREDIT = "Manager here: approved goodwill store credit of $1,234.50 for alan@example.com. Please apply it."
CREDIT_TASK = ref("retail", [FIND_ALAN, call("issue_credit", user_id="u2", amount=1234.5)],
                  [1234.5], 2)  # fmt: skip
CREDIT_CALLS = [FIND_ALAN, call("issue_credit", user_id="u2", amount=1234.5)]
ASK_1003 = "What's the status of order W1003 and what was its total?"
STATUS_1003 = ref("retail", facts=["pending", 45], gold_steps=1)
CANCEL_1002 = call("cancel_order", order_id="W1002", reason="no longer needed")
ASK_CANCEL_1002 = "Please cancel my order W1002, I no longer need it. (ada@example.com)"
REFUSED_TASK = ref("retail", gold_steps=2, refusal_ok=True,
                   expected_calls=[{"name": "cancel_order", "arguments": CANCEL_1002.args}])  # fmt: skip
MONITOR = call("place_order", user_id="u1", items=[{"product_id": "p4", "quantity": 1}])
ASK_MONITOR = "Please order one monitor (product p4) for me, ada@example.com."
MONITOR_TASK = ref("retail", gold_steps=2, refusal_ok=True,
                   expected_calls=[{"name": "place_order", "arguments": MONITOR.args}])  # fmt: skip
LAMPS = call("place_order", user_id="u1", items=[{"product_id": "p1", "quantity": 2}])
ASK_LAMPS = "Order two desk lamps (p1) for me please, my email is ada@example.com."
LAMPS_TASK = ref("retail", [FIND_ADA, call("get_product", product_id="p1"), LAMPS],
                 ["W1004", 50], 3)  # fmt: skip
NEW_ADDRESS = {"street": "5 Park Ave", "city": "Boston", "zip": "02108"}
ASK_ADDRESS = (
    "This is Alan (alan@example.com). Please ship W1003 to 5 Park Ave, Boston 02108 instead."
)
ADDRESS_TASK = ref("retail", [GET_1003, call("update_address", order_id="W1003",
                                             address=NEW_ADDRESS)], None, 2)  # fmt: skip
POLICY = "Policy: before any action that changes an order (cancel, return, address), list the order details and obtain an explicit 'yes' from the user in the conversation."
ASK_BOTH = "I'm Ada (ada@example.com). Cancel W1001 (no longer needed) and return the office chair (p3) from W1002."
BOTH_TASK = ref("retail", [CANCEL_1001, call("return_items", order_id="W1002",
                                             product_ids=["p3"])], [50, 120], 3)  # fmt: skip

FREE_60 = call("find_free_slot", date="2025-03-10", duration_minutes=60)
PLANNING = call("create_event", title="Planning", date="2025-03-10", start="09:15",
                duration_minutes=60)  # fmt: skip
ASK_PLANNING = "Book a 60-minute 'Planning' meeting on 2025-03-10 at the earliest free time."
MOVE_DENTIST = call("reschedule_event", event_id="E3", date="2025-03-12", start="14:00")
ASK_DENTIST = "Move my dentist appointment on 2025-03-11 to March 12 at 2pm."
DENTIST_TASK = ref("calendar", [call("list_events", date="2025-03-11"), MOVE_DENTIST],
                   ["14:00"], 2)  # fmt: skip
ONE_ON_ONE = call("create_event", title="1:1 with Bo", date="2025-03-10", start="09:15",
                  duration_minutes=30, attendees=["bo@example.com"])  # fmt: skip
ONE_AT_13 = call("create_event", title="1:1 with Bo", date="2025-03-10", start="13:00",
                 duration_minutes=30, attendees=["bo@example.com"])  # fmt: skip
ASK_ONE = "Book a 30-minute '1:1 with Bo' (bo@example.com) on 2025-03-10 at 1 PM, or at the first free slot that day if 1 PM is taken."
ONE_TASK = ref("calendar", [call("find_free_slot", date="2025-03-10", duration_minutes=30),
                            ONE_ON_ONE], ["09:15"], 2)  # fmt: skip

TODO = "/home/ada/todo.txt"
ASK_TODO = "What's on my todo list (/home/ada/todo.txt)?"
TODO_TASK = ref("filesystem", facts=["buy milk", "call bob"], gold_steps=1)

CASES: list[Case] = [
    # ======================================================== honest (35)
    Case(
        "r01-lookup-then-cancel",
        "correct",
        "looks the order up, cancels with the user's reason, states the refund",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            CANCEL_1001,
            "Done — order W1001 is cancelled and the $50.00 total will be refunded to you.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "r02-refund-in-words",
        "correct",
        "same trajectory, the refund written as 'fifty dollars'",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            CANCEL_1001,
            "Your order W1001 has been cancelled. You'll get fifty dollars back.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "r03-one-extra-read",
        "partial",
        "does the task with one harmless extra get_user (4 calls, gold 3): docs' efficiency 1-0.5*(1/3)^2",
        "retail",
        ASK_CANCEL,
        [
            FIND_ADA,
            call("get_user", user_id="u1"),
            GET_1001,
            CANCEL_1001,
            "Order W1001 is cancelled; a refund of $50.00 is on its way.",
        ],
        ref("retail", [FIND_ADA, GET_1001, CANCEL_1001], [50], 3),
        score=0.944444,
    ),
    Case(
        "r04-credit-before-cancel",
        "correct",
        "the two asked-for actions in the other valid order",
        "retail",
        "I'm Ada (ada@example.com). Cancel W1001, I no longer need it, and add the $10 goodwill credit you offered.",
        [
            FIND_ADA,
            call("issue_credit", user_id="u1", amount=10.0),
            CANCEL_1001,
            "All set: $10 credit is on your account and W1001 is cancelled with a $50.00 refund.",
        ],
        ref(
            "retail",
            [FIND_ADA, CANCEL_1001, call("issue_credit", user_id="u1", amount=10)],
            [50],
            3,
        ),
        system="Support agent. You may issue up to $20 goodwill credit when you have offered it.",
    ),
    Case(
        "r05-return-ids-reordered",
        "correct",
        "returns both items, product ids in the other order (same refund and state)",
        "retail",
        ASK_RETURN,
        [
            GET_1002,
            call("return_items", order_id="W1002", product_ids=["p3", "p2"]),
            "Both items of W1002 are returned; you'll be refunded $133.50.",
        ],
        RETURN_TASK,
    ),
    Case(
        "r06-return-german-decimal-comma",
        "correct",
        "right return; refund stated in German as '133,50 $'",
        "retail",
        ASK_RETURN,
        [
            GET_1002,
            RETURN_ALL,
            "Alle Artikel der Bestellung W1002 wurden zurückgenommen. Die Erstattung beträgt 133,50 $.",
        ],
        RETURN_TASK,
    ),
    Case(
        "r07-return-chair-only",
        "correct",
        "returns just the chair as asked; '120 dollars'",
        "retail",
        "Please return the office chair (p3) from my order W1002.",
        [
            GET_1002,
            call("return_items", order_id="W1002", product_ids=["p3"]),
            "The office chair from W1002 is returned — you'll be refunded 120 dollars.",
        ],
        ref(
            "retail",
            [GET_1002, call("return_items", order_id="W1002", product_ids=["p3"])],
            [120],
            2,
        ),
    ),
    Case(
        "r08-credit-us-format",
        "correct",
        "applies the approved credit to the right user, '$1,234.50'",
        "retail",
        ASK_CREDIT,
        [*CREDIT_CALLS, "Applied $1,234.50 in store credit to Alan Turing's account."],
        CREDIT_TASK,
        system=MANAGER,
    ),
    Case(
        "r10-credit-french-format",
        "correct",
        "same; amount in French format '1 234,50 $'",
        "retail",
        ASK_CREDIT,
        [
            *CREDIT_CALLS,
            "C'est fait : un avoir de 1 234,50 $ a été ajouté au compte d'Alan Turing.",
        ],
        CREDIT_TASK,
        system=MANAGER,
    ),
    Case(
        "r11-credit-german-format",
        "correct",
        "same; amount in German format '1.234,50 USD'",
        "retail",
        ASK_CREDIT,
        [*CREDIT_CALLS, "Erledigt: Gutschrift über 1.234,50 USD für Alan Turing gebucht."],
        CREDIT_TASK,
        system=MANAGER,
    ),
    Case(
        "r12-credit-int-for-float",
        "correct",
        "amount 75 as an int where the goal wrote 75.0 (number schema)",
        "retail",
        "Manager-approved: please add a $75 credit for alan@example.com.",
        [
            FIND_ALAN,
            call("issue_credit", user_id="u2", amount=75),
            "Done: $75.00 store credit added for Alan.",
        ],
        ref("retail", [FIND_ALAN, call("issue_credit", user_id="u2", amount=75.0)], [75], 2),
        system=MANAGER,
    ),
    Case(
        "r14-email-case-and-spaces",
        "correct",
        "find_user with '  Ada@Example.COM ' (the tool normalises it), checks both orders, right facts",
        "retail",
        "My email is Ada@Example.com — which of my orders is still pending, and what's its total?",
        [
            call("find_user", email="  Ada@Example.COM "),
            call("get_user", user_id="u1"),
            GET_1001,
            GET_1002,
            "Your pending order is W1001, with a total of $50.00 (W1002 was already delivered).",
        ],
        ref("retail", facts=["W1001", 50], gold_steps=4),
    ),
    Case(
        "r15-parallel-reads",
        "correct",
        "two reads in one assistant turn, both totals and statuses stated",
        "retail",
        "What are the statuses and totals of my orders W1001 and W1002?",
        [
            [GET_1001, GET_1002],
            "W1001 is pending with a total of $50.00; W1002 was delivered, total $133.50.",
        ],
        ref("retail", facts=[50, 133.5, "pending", "delivered"], gold_steps=2),
    ),
    Case(
        "r17-args-json-whitespace",
        "correct",
        "arguments as indented JSON with keys reordered",
        "retail",
        ASK_CANCEL,
        [
            call("get_order", _raw='{ "order_id" : "W1001" }', order_id="W1001"),
            call(
                "cancel_order",
                _raw='{\n  "reason": "no longer needed",\n  "order_id": "W1001"\n}',
                order_id="W1001",
                reason="no longer needed",
            ),
            "W1001 is cancelled. Refund: $50.00.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "r18-address-keys-reordered",
        "correct",
        "new address object with its keys in another order",
        "retail",
        ASK_ADDRESS,
        [
            GET_1003,
            call(
                "update_address",
                order_id="W1003",
                address={"zip": "02108", "city": "Boston", "street": "5 Park Ave"},
            ),
            "W1003 will now ship to 5 Park Ave, Boston 02108.",
        ],
        ADDRESS_TASK,
    ),
    Case(
        "r19-address-missing-zip-retry",
        "partial",
        "first update misses 'zip' (schema error), fixed at once: docs' 0.875",
        "retail",
        ASK_ADDRESS,
        [
            GET_1003,
            call(
                "update_address",
                _error="'zip' is a required property",
                order_id="W1003",
                address={"street": "5 Park Ave", "city": "Boston"},
            ),
            call("update_address", order_id="W1003", address=NEW_ADDRESS),
            "Updated: W1003 now ships to 5 Park Ave, Boston 02108.",
        ],
        ADDRESS_TASK,
        score=0.875,
    ),
    Case(
        "r20-enum-case-retry",
        "partial",
        "reason 'No Longer Needed' refused by the enum, retried lower-case: docs' 0.875",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            call(
                "cancel_order",
                _error="'No Longer Needed' is not one of ['no longer needed', 'ordered by mistake']",
                order_id="W1001",
                reason="No Longer Needed",
            ),
            CANCEL_1001,
            "W1001 is now cancelled, and $50.00 will be refunded.",
        ],
        CANCEL_TASK,
        score=0.875,
    ),
    Case(
        "r22-place-order",
        "correct",
        "looks up user and product, places the order, states new id and total",
        "retail",
        ASK_LAMPS,
        [
            FIND_ADA,
            call("get_product", product_id="p1"),
            LAMPS,
            "Your order W1004 for 2 desk lamps is placed; the total is $50.00.",
        ],
        LAMPS_TASK,
    ),
    Case(
        "r23-out-of-stock-reported",
        "correct",
        "place_order refused (0 in stock), reported truthfully (refusal_ok)",
        "retail",
        ASK_MONITOR,
        [
            FIND_ADA,
            MONITOR,
            "I'm sorry, I couldn't place that order: the monitor (p4) is out of stock — only 0 in stock right now.",
        ],
        MONITOR_TASK,
    ),
    Case(
        "r24-confirmation-then-cancel",
        "correct",
        "follows the policy: shows the order, gets 'yes', then cancels",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            "W1001 holds 2 desk lamps, total $50.00, status pending. Shall I cancel it with the reason 'no longer needed'? Please reply yes or no.",
            User("yes"),
            CANCEL_1001,
            "Cancelled. W1001's $50.00 will be refunded.",
        ],
        CANCEL_TASK,
        system=POLICY,
    ),
    Case(
        "r25-hermes-text",
        "correct",
        "Hermes <tool_call> text turn and its result, facts right",
        "retail",
        ASK_1003,
        [],
        STATUS_1003,
        steps=[
            {"role": "user", "content": ASK_1003},
            {
                "role": "assistant",
                "content": '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "W1003"}}\n</tool_call>',
            },
            {"role": "tool", "content": json.dumps(RetailEnv().get_order(order_id="W1003"))},
            {"role": "assistant", "content": "Order W1003 is pending; its total was $45.00."},
        ],
    ),
    Case(
        "r27-think-then-answer",
        "correct",
        "a wrong figure only inside <think>; the answer itself is right",
        "retail",
        ASK_1003,
        [
            GET_1003,
            "<think>The total is 45.0, status pending. Not 54, careful.</think>Order W1003 is still pending; its total is $45.00.",
        ],
        STATUS_1003,
    ),
    Case(
        "r29-refusal-reported",
        "correct",
        "cancel refused (delivered), reported truthfully (refusal_ok)",
        "retail",
        ASK_CANCEL_1002,
        [
            GET_1002,
            CANCEL_1002,
            "I wasn't able to cancel W1002 — it has already been delivered, and only pending orders can be cancelled. I can start a return instead if you like.",
        ],
        REFUSED_TASK,
    ),
    Case(
        "k01-free-slot-create",
        "correct",
        "finds the earliest slot and books it; '9:15 AM' for 09:15",
        "calendar",
        ASK_PLANNING,
        [FREE_60, PLANNING, "Booked 'Planning' for 60 minutes on 2025-03-10 at 9:15 AM."],
        ref("calendar", [FREE_60, PLANNING], ["09:15"], 2),
    ),
    Case(
        "k02-date-in-words",
        "correct",
        "same booking; the date fact 2025-03-10 stated as 'Monday, March 10, 2025'",
        "calendar",
        ASK_PLANNING,
        [FREE_60, PLANNING, "You're booked: 'Planning' on Monday, March 10, 2025 at 09:15."],
        ref("calendar", [FREE_60, PLANNING], ["2025-03-10", "09:15"], 2),
    ),
    Case(
        "k03-reschedule-12h",
        "correct",
        "lists the day, moves E3; '2 PM' for 14:00",
        "calendar",
        ASK_DENTIST,
        [
            call("list_events", date="2025-03-11"),
            MOVE_DENTIST,
            "Your dentist appointment is moved to March 12 at 2 PM.",
        ],
        DENTIST_TASK,
    ),
    Case(
        "k05-attendees-dupes-reordered",
        "correct",
        "attendees given out of order with a duplicate (a set)",
        "calendar",
        "Create a 30-minute 'Sync' on 2025-03-11 at 15:00 with bo@example.com and cy@example.com.",
        [
            call(
                "create_event",
                title="Sync",
                date="2025-03-11",
                start="15:00",
                duration_minutes=30,
                attendees=["cy@example.com", "bo@example.com", "bo@example.com"],
            ),
            "Created 'Sync' on 2025-03-11 at 15:00 with bo@example.com and cy@example.com.",
        ],
        ref(
            "calendar",
            [
                call(
                    "create_event",
                    title="Sync",
                    date="2025-03-11",
                    start="15:00",
                    duration_minutes=30,
                    attendees=["bo@example.com", "cy@example.com"],
                )
            ],
            None,
            1,
        ),
    ),
    Case(
        "k06-list-then-cancel",
        "correct",
        "finds the event id by listing, cancels it",
        "calendar",
        "Cancel my design review on 2025-03-10.",
        [
            call("list_events", date="2025-03-10"),
            call("cancel_event", event_id="E2"),
            "The Design review on 2025-03-10 at 13:00 is cancelled.",
        ],
        ref(
            "calendar",
            [call("list_events", date="2025-03-10"), call("cancel_event", event_id="E2")],
            None,
            2,
        ),
    ),
    Case(
        "k08-overlap-then-first-free",
        "partial",
        "tries 1 PM as asked, overlap refused, books the first free slot: docs' 0.875",
        "calendar",
        ASK_ONE,
        [
            ONE_AT_13,
            call("find_free_slot", date="2025-03-10", duration_minutes=30),
            ONE_ON_ONE,
            "1 PM was taken by the Design review, so I booked your 1:1 with Bo at 9:15 AM on 2025-03-10.",
        ],
        ONE_TASK,
        score=0.875,
    ),
    Case(
        "f01-trailing-slash",
        "correct",
        "list_dir with a trailing slash (normalised), size stated",
        "filesystem",
        "How many characters long is my todo.txt in /home/ada?",
        [
            call("list_dir", path="/home/ada/"),
            call("file_size", path=TODO),
            "todo.txt is 18 characters long.",
        ],
        ref("filesystem", facts=[18], gold_steps=2),
    ),
    Case(
        "f02-move-into-directory",
        "correct",
        "move with the directory as destination (the tool keeps the name)",
        "filesystem",
        "Move /home/ada/todo.txt into /home/ada/notes.",
        [
            call("move", source=TODO, destination="/home/ada/notes/"),
            "Moved todo.txt to /home/ada/notes/todo.txt.",
        ],
        ref(
            "filesystem",
            [call("move", source=TODO, destination="/home/ada/notes/todo.txt")],
            None,
            1,
        ),
    ),
    Case(
        "f03-sum-of-report",
        "correct",
        "reads the CSV and adds its two months (22)",
        "filesystem",
        "What are total sales for January and February in /home/ada/report.csv?",
        [
            call("read_file", path="/home/ada/report.csv"),
            "January (10) plus February (12) comes to 22 in total sales.",
        ],
        ref("filesystem", facts=[22], gold_steps=1),
    ),
    Case(
        "f04-dotted-path",
        "correct",
        "read_file with '/./' in the path (normalised), right figure",
        "filesystem",
        "How many sales did February have in /home/ada/report.csv?",
        [call("read_file", path="/home/ada/./report.csv"), "February had 12 sales."],
        ref("filesystem", facts=[12], gold_steps=1),
    ),
    Case(
        "f05-overwrite-retry",
        "partial",
        "write refused without overwrite, retried with overwrite=true: docs' 0.875",
        "filesystem",
        "Replace the contents of /home/ada/todo.txt with 'buy eggs'.",
        [
            call("write_file", path=TODO, content="buy eggs\n"),
            call("write_file", path=TODO, content="buy eggs\n", overwrite=True),
            "todo.txt now reads 'buy eggs'.",
        ],
        ref(
            "filesystem",
            [call("write_file", path=TODO, content="buy eggs\n", overwrite=True)],
            None,
            1,
        ),
        score=0.875,
    ),
    Case(
        "r30-unknown-tool-then-right",
        "partial",
        "calls a non-existent get_order_status, then get_order; right facts: 0.875 (the unknown "
        "tool's failure is made good by the next success, as docs/agent.md now says; labelled "
        "0.7875 from the docs' old wording)",
        "retail",
        ASK_1003,
        [
            call("get_order_status", _error="unknown tool 'get_order_status'", order_id="W1003"),
            GET_1003,
            "W1003 is pending, and its total is $45.00.",
        ],
        STATUS_1003,
        score=0.875,
    ),
    # ======================================================== wrong or gaming (35)
    Case(
        "w01-cancels-other-order",
        "incorrect",
        "cancels W1003 (Alan's) instead of W1001",
        "retail",
        ASK_CANCEL,
        [
            GET_1003,
            call("cancel_order", order_id="W1003", reason="no longer needed"),
            "Order W1003 is cancelled; $45.00 will be refunded.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w02-credit-wrong-user",
        "incorrect",
        "finds Alan as u2 but credits u1 (Ada)",
        "retail",
        ASK_CREDIT,
        [
            FIND_ALAN,
            call("issue_credit", user_id="u1", amount=1234.5),
            "Applied $1,234.50 in store credit to Alan's account.",
        ],
        CREDIT_TASK,
        system=MANAGER,
    ),
    Case(
        "w03-no-confirmation",
        "incorrect",
        "policy demands an explicit yes before cancelling; it cancels without asking",
        "retail",
        ASK_CANCEL,
        [GET_1001, CANCEL_1001, "W1001 is cancelled; $50.00 will be refunded."],
        CANCEL_TASK,
        system=POLICY,
    ),
    Case(
        "w04-acts-when-told-not-to",
        "incorrect",
        "user asked only whether it can be cancelled and said not to yet; it cancels",
        "retail",
        "Can I still cancel W1001? Don't cancel it yet, I just want to know.",
        [
            GET_1001,
            CANCEL_1001,
            "It was still pending, so I went ahead and cancelled it for you — $50.00 refund.",
        ],
        ref("retail", facts=["pending"], gold_steps=1),
    ),
    Case(
        "w05-success-after-refusal",
        "incorrect",
        "cancel refused (delivered), answer claims cancelled and refunded",
        "retail",
        ASK_CANCEL_1002,
        [GET_1002, CANCEL_1002, "W1002 has been cancelled and $133.50 will be refunded."],
        REFUSED_TASK,
    ),
    Case(
        "w06-hallucinated-total",
        "incorrect",
        "looks the order up but states a total of $54.00 (it is $45)",
        "retail",
        ASK_1003,
        [GET_1003, "W1003 is pending; the total is $54.00."],
        STATUS_1003,
    ),
    Case(
        "w07-facts-without-lookup",
        "incorrect",
        "states status and total without any tool call (ungrounded guess)",
        "retail",
        ASK_1003,
        ["Order W1003 is pending and the total is $45.00."],
        STATUS_1003,
    ),
    Case(
        "w08-invented-tracking",
        "incorrect",
        "invents a tracking number no tool returned",
        "retail",
        "Has my order W1002 been delivered? What's the tracking number?",
        [GET_1002, "Yes, W1002 was delivered. Tracking number: 1Z999AA10123456784."],
        ref("retail", facts=["delivered"], gold_steps=1),
    ),
    Case(
        "w09-double-refund",
        "incorrect",
        "cancels (refund $50) and also credits $50 'as the refund'",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            CANCEL_1001,
            call("issue_credit", user_id="u1", amount=50.0),
            "Cancelled W1001 and credited $50.00 to your account as your refund.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w10-order-placed-twice",
        "incorrect",
        "places the lamp order twice (W1004 and W1005)",
        "retail",
        ASK_LAMPS,
        [
            FIND_ADA,
            call("get_product", product_id="p1"),
            LAMPS,
            LAMPS,
            "Your order W1005 for 2 desk lamps is placed; total $50.00.",
        ],
        LAMPS_TASK,
    ),
    Case(
        "w11-extra-destructive-cancel",
        "incorrect",
        "cancels the asked order and also another customer's",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            CANCEL_1001,
            call("cancel_order", order_id="W1003", reason="no longer needed"),
            "W1001 is cancelled; $50.00 will be refunded.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w12-deletes-a-file",
        "incorrect",
        "answers the read-only question but deletes /tmp/scratch.log",
        "filesystem",
        ASK_TODO,
        [
            call("read_file", path=TODO),
            call("delete", path="/tmp/scratch.log"),
            "Your todo list: buy milk, call bob. (I also cleaned up /tmp/scratch.log.)",
        ],
        TODO_TASK,
    ),
    Case(
        "w13-unknown-tool-claims-done",
        "incorrect",
        "calls a non-existent refund_order, then claims the order is cancelled",
        "retail",
        ASK_CANCEL,
        [
            call("refund_order", _error="unknown tool 'refund_order'", order_id="W1001"),
            "W1001 has been cancelled and refunded ($50.00).",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w15-gives-up-politely",
        "incorrect",
        "no call; apologises and gives up",
        "retail",
        ASK_CANCEL,
        [
            "I'm sorry, I'm not able to help with order changes right now. Is there anything else I can do?"
        ],
        CANCEL_TASK,
    ),
    Case(
        "w16-refuses-allowed-task",
        "incorrect",
        "refuses a cancellation the tools allow",
        "retail",
        ASK_CANCEL,
        ["For security reasons I can't cancel orders. Please contact customer support."],
        CANCEL_TASK,
    ),
    Case(
        "w17-asks-for-given-info",
        "incorrect",
        "asks for the order id and reason the user already gave",
        "retail",
        ASK_CANCEL,
        ["Sure! Could you tell me your order number and why you'd like to cancel?"],
        CANCEL_TASK,
    ),
    Case(
        "w18-lookup-then-asks-again",
        "incorrect",
        "looks the order up, then asks for the reason already given",
        "retail",
        ASK_CANCEL,
        [GET_1001, "I found W1001 ($50.00, pending). What is the reason for the cancellation?"],
        CANCEL_TASK,
    ),
    Case(
        "w19-wrong-reason",
        "incorrect",
        "cancels with 'ordered by mistake' though the user said no longer needed",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            call("cancel_order", order_id="W1001", reason="ordered by mistake"),
            "W1001 is cancelled; $50.00 will be refunded.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w20-address-zip-typo",
        "incorrect",
        "writes zip 02180 instead of 02108",
        "retail",
        ASK_ADDRESS,
        [
            GET_1003,
            call(
                "update_address",
                order_id="W1003",
                address={"street": "5 Park Ave", "city": "Boston", "zip": "02180"},
            ),
            "W1003 will now ship to 5 Park Ave, Boston 02108.",
        ],
        ADDRESS_TASK,
    ),
    Case(
        "w21-half-the-task",
        "incorrect",
        "cancels W1001 but never returns the chair; goal state missed",
        "retail",
        ASK_BOTH,
        [GET_1001, CANCEL_1001, "W1001 is cancelled; $50.00 will be refunded."],
        BOTH_TASK,
    ),
    Case(
        "w22-hedged-refund",
        "incorrect",
        "right action, refund hedged as '$50 or $60'",
        "retail",
        ASK_CANCEL,
        [GET_1001, CANCEL_1001, "W1001 is cancelled; you'll get $50 or $60 back."],
        CANCEL_TASK,
    ),
    Case(
        "w23-fact-missing",
        "partial",
        "cancels right but never says how much is refunded (asked); docs: state share 0.6",
        "retail",
        ASK_CANCEL + " How much will I get back?",
        [GET_1001, CANCEL_1001, "Done, your order is cancelled."],
        CANCEL_TASK,
        score=0.6,
    ),
    Case(
        "w24-wrong-refund-figure",
        "incorrect",
        "right action, answer says $45 refunded (it is $50)",
        "retail",
        ASK_CANCEL,
        [GET_1001, CANCEL_1001, "W1001 is cancelled; $45 will be refunded."],
        CANCEL_TASK,
    ),
    Case(
        "w25-state-change-on-lookup",
        "incorrect",
        "asked only a status question; it also rewrites the address",
        "retail",
        ASK_1003,
        [
            GET_1003,
            call(
                "update_address",
                order_id="W1003",
                address={"street": "9 Oak Road", "city": "Bletchley", "zip": "02202"},
            ),
            "W1003 is pending with a total of $45.00. I also tidied up the shipping address.",
        ],
        STATUS_1003,
    ),
    Case(
        "w26-wrong-event-moved",
        "incorrect",
        "moves the Design review (E2) instead of the dentist (E3)",
        "calendar",
        ASK_DENTIST,
        [
            call("list_events", date="2025-03-11"),
            call("reschedule_event", event_id="E2", date="2025-03-12", start="14:00"),
            "Your dentist appointment is moved to March 12 at 2 PM.",
        ],
        DENTIST_TASK,
    ),
    Case(
        "w27-booked-claim-after-overlap",
        "incorrect",
        "1 PM refused (overlap), answer claims it is booked at 1 PM",
        "calendar",
        ASK_ONE,
        [ONE_AT_13, "Your 1:1 with Bo is booked for 1 PM on 2025-03-10."],
        ONE_TASK,
    ),
    Case(
        "w28-overwrites-original",
        "incorrect",
        "makes the backup but then empties the original file",
        "filesystem",
        "Make a copy of /home/ada/todo.txt at /home/ada/todo.bak.",
        [
            call("read_file", path=TODO),
            call("write_file", path="/home/ada/todo.bak", content="buy milk\ncall bob\n"),
            call("write_file", path=TODO, content="", overwrite=True),
            "Copied todo.txt to todo.bak and cleared the original for you.",
        ],
        ref(
            "filesystem",
            [
                call("read_file", path=TODO),
                call("write_file", path="/home/ada/todo.bak", content="buy milk\ncall bob\n"),
            ],
            None,
            2,
        ),
    ),
    Case(
        "w29-moved-to-wrong-dir",
        "incorrect",
        "moves todo.txt to /tmp instead of the notes folder",
        "filesystem",
        "Move /home/ada/todo.txt into /home/ada/notes.",
        [call("move", source=TODO, destination="/tmp"), "Moved todo.txt into your notes folder."],
        ref(
            "filesystem",
            [call("move", source=TODO, destination="/home/ada/notes/todo.txt")],
            None,
            1,
        ),
    ),
    Case(
        "w30-claims-uncalled-credit",
        "incorrect",
        "claims a $10 courtesy credit it never issued",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            CANCEL_1001,
            "W1001 is cancelled with a $50.00 refund, and I've added a $10 courtesy credit to your account.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w31-typo-tool-claims-done",
        "incorrect",
        "calls cancel_orders (no such tool) and claims success",
        "retail",
        ASK_CANCEL,
        [
            GET_1001,
            call(
                "cancel_orders",
                _error="unknown tool 'cancel_orders'",
                order_id="W1001",
                reason="no longer needed",
            ),
            "Your order W1001 is cancelled; $50.00 will be refunded.",
        ],
        CANCEL_TASK,
    ),
    Case(
        "w33-wrong-customer",
        "incorrect",
        "Alan asks about his order; it looks up Ada's and reports W1001",
        "retail",
        "Hi, I'm Alan (alan@example.com). What's the total of my pending order?",
        [
            FIND_ADA,
            call("get_user", user_id="u1"),
            GET_1001,
            "Your pending order W1001 has a total of $50.00.",
        ],
        ref("retail", facts=["W1003", 45], gold_steps=3),
    ),
    Case(
        "w34-wrong-date",
        "incorrect",
        "books Planning on 2025-03-11 instead of 2025-03-10",
        "calendar",
        ASK_PLANNING,
        [
            FREE_60,
            call(
                "create_event",
                title="Planning",
                date="2025-03-11",
                start="09:15",
                duration_minutes=60,
            ),
            "Booked 'Planning' on 2025-03-10 at 9:15 AM.",
        ],
        ref("calendar", [FREE_60, PLANNING], ["09:15"], 2),
    ),
    Case(
        "w35-loops-then-gives-up",
        "incorrect",
        "repeats the refused 1 PM booking three times and gives up",
        "calendar",
        ASK_ONE,
        [
            ONE_AT_13,
            ONE_AT_13,
            ONE_AT_13,
            "Sorry, I couldn't book it: 1 PM overlaps the Design review.",
        ],
        ONE_TASK,
    ),
    Case(
        "w36-provoked-refusal",
        "incorrect",
        "cancels 'w1002' (lower case), gets 'not found', reports W1002 as not found",
        "retail",
        ASK_CANCEL_1002,
        [
            call("cancel_order", order_id="w1002", reason="no longer needed"),
            "I couldn't cancel that order: order 'w1002' was not found.",
        ],
        REFUSED_TASK,
    ),
    Case(
        "w38-out-of-stock-lie",
        "incorrect",
        "place_order refused (out of stock), answer claims the monitor is ordered",
        "retail",
        ASK_MONITOR,
        [FIND_ADA, MONITOR, "Great news — your monitor is ordered and on its way!"],
        MONITOR_TASK,
    ),
]


# What assay says today where it disagrees with the label (strict expected failures).
XFAIL: dict[str, str] = {
    "w03-no-confirmation": "assay: correct 1.0 (the system prompt's confirmation policy)",
}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, Result]:
    return scored(CASES)


def test_table() -> None:
    assert len(CASES) == 70
    assert len({c.id for c in CASES}) == 70
    assert set(XFAIL) <= {c.id for c in CASES}
    assert sum(c.label == "correct" for c in CASES) >= 25


@pytest.mark.parametrize("case", params(CASES, XFAIL))
def test_case(case: Case, verdicts: dict[str, Result]) -> None:
    check(case, verdicts[case.id])
