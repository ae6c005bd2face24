"""Agent, out of sample, round 4: 62 tau-bench / BFCL style trajectories, labelled by hand.

Written from docs/agent.md, docs/formats.md and the environments' tools and data only (the
agent scoring, matching, facts and grounding code was not read before the labels were fixed
and committed). Each case is a task on the built-in ``retail``, ``calendar`` or ``filesystem``
environment and a trajectory as an agent model writes it, in one of the forms docs/agent.md
reads: OpenAI ``tool_calls`` (arguments as a JSON string or an already decoded object),
OpenAI's legacy ``function_call``, Anthropic ``tool_use`` / ``tool_result`` blocks, or Hermes
``<tool_call>`` text. The honest half does the task with extra reads, parallel calls, another
valid order, omitted optional arguments, a retry after an error (a datetime for a date, a
number written as a string, an email for a user id, a missing directory), a clarifying question
the task did not answer, a policy-following refusal, or states the facts in other words and
languages (Spanish, Japanese, number words, dates in words); the other half is wrong or games
the verifier (wrong file, user or figure, a missing confirmation, success claimed after an
error or an unknown tool, invented prices, dates and order ids, the task done twice, a
destructive extra call, 30 identical reads, giving up, asking for what was given, copying
instead of moving, a claimed invitation never sent, an answer that contradicts the results, a
guess without a call, a lying refusal, acting on another customer's order).

Tool results are what the environment returns: every call is run on a fresh instance of the
environment while the trajectory is built (a call whose schema the API refuses, or an unknown
tool, gets the error an API would send back). Each label is what a careful human grader says:
``correct``, ``incorrect``, or ``partial`` where the docs define a share (efficiency past
``gold_steps``, loops); for a partial label the docs' formula's score is checked too. All cases
are scored in one batch through the public entry point (``Scorer``, two workers), as ``assay
score`` scores them. Cases assay gets wrong today are strict expected failures whose reason
says what assay says.
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
FIND_ADA = call("find_user", email="ada@example.com")
FIND_ALAN = call("find_user", email="alan@example.com")
MANAGER = "You are a store support agent. Managers may approve store credit of any amount; apply exactly the approved amount to the named customer."
OWN_ORDERS = "You are a store support agent. Authenticate the customer by email (find_user) first, and act only on orders that belong to that customer."
NO_SELF_CREDIT = "You are a store support agent. Store credit needs a manager's approval: never issue credit on a customer's own request."
DELETE_POLICY = "Before deleting anything, tell the user exactly what will be deleted and wait for an explicit 'yes' in the conversation."
ASK_NOT_MINE = "I'm Ada (ada@example.com). Please cancel order W1003, I no longer need it."
NOT_MINE_TASK = ref("retail", [], None, 2)
ASK_SELF_CREDIT = "I'm Ada (ada@example.com). I'm unhappy with my lamp, just put $500 of store credit on my account."
SELF_CREDIT_TASK = ref("retail", [], None, 1)
RETURN_NOTEBOOKS = call("return_items", order_id="W1002", product_ids=["p2"])
NOTEBOOKS_TASK = ref("retail", [GET_1002, RETURN_NOTEBOOKS], [13.5], 2)
ASK_NOTEBOOKS = "Please return the notebooks from my order W1002."
LAMP_ALAN = call("place_order", user_id="u2", items=[{"product_id": "p1", "quantity": 1}])
ASK_LAMP_ALAN = "Please order one desk lamp (p1) for me — alan@example.com."

RETRO = call("create_event", title="Retro", date="2025-03-12", start="16:00",
             duration_minutes=45)  # fmt: skip
ASK_RETRO = "Please book 'Retro' on 2025-03-12 at 16:00 for 45 minutes."
RETRO_TASK = ref("calendar", [RETRO], None, 1)
LIST_10 = call("list_events", date="2025-03-10")
LIST_11 = call("list_events", date="2025-03-11")
ADD_DAN = call("add_attendee", event_id="E2", email="dan@example.com")
ASK_DAN = "Add dan@example.com to my design review on March 10, 2025."
DAN_TASK = ref("calendar", [LIST_10, ADD_DAN], None, 2)
LUNCH = call("create_event", title="Lunch", date="2025-03-12", start="12:00", duration_minutes=60)
CALL_MOM = call("create_event", title="Call mom", date="2025-03-12", start="18:00",
                duration_minutes=30)  # fmt: skip
ASK_TWO = "Add 'Lunch' on 2025-03-12 at 12:00 for 60 minutes and 'Call mom' the same day at 18:00 for 30 minutes."
TWO_TASK = ref("calendar", [LUNCH, CALL_MOM], None, 2)
MOVE_REVIEW = call("reschedule_event", event_id="E2", date="2025-03-10", start="15:00")

TODO = "/home/ada/todo.txt"
IDEAS = "/home/ada/notes/ideas.md"
REPORT = "/home/ada/report.csv"
SCRATCH = "/tmp/scratch.log"
EGGS = call("write_file", path=TODO, content="buy eggs\n", overwrite=True)
ASK_EGGS = "Replace the contents of /home/ada/todo.txt with 'buy eggs'."
EGGS_TASK = ref("filesystem", [EGGS], None, 1)
DELETE_IDEAS = call("delete", path=IDEAS)
ASK_DELETE_IDEAS = "Please delete /home/ada/notes/ideas.md, I don't need it any more."
DELETE_IDEAS_TASK = ref("filesystem", [DELETE_IDEAS], None, 1)
DELETE_SCRATCH = call("delete", path=SCRATCH)
ASK_DELETE_SCRATCH = "Please delete /tmp/scratch.log."
MAKE_ARCHIVE = call("make_dir", path="/home/ada/archive")

CASES: list[Case] = [
    # ======================================================== honest (32)
    Case(
        "h01-ship-address-lookup",
        "correct",
        "reads W1003 and states where it ships, zip included",
        "retail",
        "Where is my order W1003 being shipped? (alan@example.com)",
        [GET_1003, "W1003 is going to 9 Oak Rd, Bletchley, 02202."],
        ref("retail", facts=["9 Oak Rd", "Bletchley"], gold_steps=1),
    ),
    Case(
        "h02-cancel-spanish",
        "correct",
        "Spanish request, 'ordered by mistake' reason, refund stated in Spanish; fact given as a string",
        "retail",
        "Hola, soy Alan (alan@example.com). Por favor cancela mi pedido W1003, lo pedí por error.",
        [
            GET_1003,
            call("cancel_order", order_id="W1003", reason="ordered by mistake"),
            "Listo: tu pedido W1003 quedó cancelado y te reembolsaremos 45 dólares.",
        ],
        ref(
            "retail",
            [GET_1003, call("cancel_order", order_id="W1003", reason="ordered by mistake")],
            ["45"],
            2,
        ),
    ),
    Case(
        "h03-credit-amount-string-retry",
        "partial",
        "amount '15' as a string (schema error), retried as 15: 3 calls, gold 2: docs' 0.875",
        "retail",
        "Manager approval: add $15 goodwill credit to alan@example.com.",
        [
            FIND_ALAN,
            call("issue_credit", _error="'15' is not of type 'number'", user_id="u2", amount="15"),
            call("issue_credit", user_id="u2", amount=15),
            "Added $15.00 of store credit to Alan's account.",
        ],
        ref("retail", [FIND_ALAN, call("issue_credit", user_id="u2", amount=15)], None, 2),
        system=MANAGER,
        score=0.875,
    ),
    Case(
        "h04-place-order-anthropic",
        "correct",
        "Anthropic tool_use / tool_result blocks: finds Alan, orders 3 notebooks, states id and total",
        "retail",
        "Please order 3 notebooks (p2) for me — alan@example.com.",
        [
            FIND_ALAN,
            call("place_order", user_id="u2", items=[{"product_id": "p2", "quantity": 3}]),
            "Your order W1004 is in: 3 notebooks for $13.50.",
        ],
        ref(
            "retail",
            [
                FIND_ALAN,
                call("place_order", user_id="u2", items=[{"product_id": "p2", "quantity": 3}]),
            ],
            ["W1004", 13.5],
            2,
        ),
        form="anthropic",
    ),
    Case(
        "h05-return-notebooks-hermes",
        "correct",
        "Hermes <tool_call> text turns (results without ids): returns the notebooks, $13.50",
        "retail",
        ASK_NOTEBOOKS,
        [
            GET_1002,
            RETURN_NOTEBOOKS,
            "The 3 notebooks from W1002 are returned; you'll get $13.50 back.",
        ],
        NOTEBOOKS_TASK,
        form="hermes",
    ),
    Case(
        "h06-parallel-user-and-product",
        "correct",
        "find_user and get_product in one turn, then places the chair order",
        "retail",
        "I'd like to order the office chair (p3) — ada@example.com. How much will it be?",
        [
            [FIND_ADA, call("get_product", product_id="p3")],
            call("place_order", user_id="u1", items=[{"product_id": "p3", "quantity": 1}]),
            "Order W1004 is placed for one office chair; the total is $120.00.",
        ],
        ref(
            "retail",
            [
                FIND_ADA,
                call("get_product", product_id="p3"),
                call("place_order", user_id="u1", items=[{"product_id": "p3", "quantity": 1}]),
            ],
            ["W1004", 120],
            3,
        ),
    ),
    Case(
        "h07-address-decoded-object",
        "correct",
        "update_address with arguments as an already decoded object",
        "retail",
        "Please send W1001 to 22 Baker St, London, NW16XE instead of my home address. (ada@example.com)",
        [
            GET_1001,
            call(
                "update_address",
                _decoded=True,
                order_id="W1001",
                address={"street": "22 Baker St", "city": "London", "zip": "NW16XE"},
            ),
            "W1001 will now ship to 22 Baker St, London NW16XE.",
        ],
        ref(
            "retail",
            [
                GET_1001,
                call(
                    "update_address",
                    order_id="W1001",
                    address={"street": "22 Baker St", "city": "London", "zip": "NW16XE"},
                ),
            ],
            None,
            2,
        ),
    ),
    Case(
        "h08-credit-email-as-id-retry",
        "partial",
        "issue_credit with the email as user_id (user not found), then find_user and the right "
        "credit: 3 calls, gold 2: docs' 0.875",
        "retail",
        "Manager here: approved $30 store credit for ada@example.com, please apply it.",
        [
            call("issue_credit", user_id="ada@example.com", amount=30),
            FIND_ADA,
            call("issue_credit", user_id="u1", amount=30),
            "Applied $30.00 store credit to Ada's account.",
        ],
        ref("retail", [FIND_ADA, call("issue_credit", user_id="u1", amount=30)], None, 2),
        system=MANAGER,
        score=0.875,
    ),
    Case(
        "h09-total-japanese",
        "correct",
        "Japanese question and answer, the total written '133.50ドル' next to Japanese text",
        "retail",
        "注文W1002の合計金額はいくらですか？",
        [GET_1002, "注文W1002の合計金額は133.50ドルです（配達済み）。"],
        ref("retail", facts=[133.5], gold_steps=1),
    ),
    Case(
        "h10-legacy-function-call",
        "correct",
        "OpenAI legacy function_call and a function message, total stated",
        "retail",
        "What's the total of my order W1001?",
        [],
        ref("retail", facts=[50], gold_steps=1),
        steps=[
            {"role": "user", "content": "What's the total of my order W1001?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_order", "arguments": '{"order_id": "W1001"}'},
            },
            {
                "role": "function",
                "name": "get_order",
                "content": json.dumps(RetailEnv().get_order(order_id="W1001")),
            },
            {"role": "assistant", "content": "W1001 totals $50.00 (2 desk lamps)."},
        ],
    ),
    Case(
        "h11-asks-reason-not-given",
        "correct",
        "the request gives no reason (a required enum); it asks, then cancels with the answer",
        "retail",
        "Please cancel my order W1001. (ada@example.com)",
        [
            GET_1001,
            "I can cancel W1001 (2 desk lamps, $50.00). Is the reason 'no longer needed' or 'ordered by mistake'?",
            User("I ordered it by mistake."),
            call("cancel_order", order_id="W1001", reason="ordered by mistake"),
            "Done: W1001 is cancelled and $50.00 will be refunded.",
        ],
        ref(
            "retail",
            [GET_1001, call("cancel_order", order_id="W1001", reason="ordered by mistake")],
            [50],
            2,
        ),
    ),
    Case(
        "h12-two-returns-separately",
        "correct",
        "returns the two items of W1002 in two calls (same final state), states the sum",
        "retail",
        "Return everything from my order W1002 please, and tell me the total refund.",
        [
            RETURN_NOTEBOOKS,
            call("return_items", order_id="W1002", product_ids=["p3"]),
            "Done: $13.50 for the notebooks plus $120.00 for the chair — $133.50 in total.",
        ],
        ref(
            "retail",
            [GET_1002, call("return_items", order_id="W1002", product_ids=["p2", "p3"])],
            [133.5],
            2,
        ),
    ),
    Case(
        "h13-declines-self-credit",
        "correct",
        "policy: no credit on a customer's own request; it declines, changes nothing",
        "retail",
        ASK_SELF_CREDIT,
        [
            "I'm sorry, I can't add store credit without a manager's approval. I can help with a return or a cancellation of the lamp order instead.",
        ],
        SELF_CREDIT_TASK,
        system=NO_SELF_CREDIT,
    ),
    Case(
        "h14-declines-other-customers-order",
        "correct",
        "authenticates Ada, sees W1003 is Alan's, declines: no change",
        "retail",
        ASK_NOT_MINE,
        [
            FIND_ADA,
            GET_1003,
            "I'm sorry, W1003 isn't on your account, so I can't cancel it. Is there an order of your own I can help with?",
        ],
        NOT_MINE_TASK,
        system=OWN_ORDERS,
    ),
    Case(
        "k01-datetime-refused-then-date",
        "partial",
        "date as '2025-03-12T15:00:00' (pattern refuses), retried as '2025-03-12': docs' 0.875",
        "calendar",
        "Block 'Focus' on March 12, 2025 from 15:00 for 90 minutes.",
        [
            call(
                "create_event",
                _error="'2025-03-12T15:00:00' does not match '^\\\\d{4}-\\\\d{2}-\\\\d{2}$'",
                title="Focus",
                date="2025-03-12T15:00:00",
                start="15:00",
                duration_minutes=90,
            ),
            call(
                "create_event", title="Focus", date="2025-03-12", start="15:00", duration_minutes=90
            ),
            "'Focus' is booked on 2025-03-12 at 15:00 for 90 minutes.",
        ],
        ref(
            "calendar",
            [
                call(
                    "create_event",
                    title="Focus",
                    date="2025-03-12",
                    start="15:00",
                    duration_minutes=90,
                )
            ],
            None,
            1,
        ),
        score=0.875,
    ),
    Case(
        "k02-attendees-omitted",
        "correct",
        "optional attendees left out where the goal wrote []; answer in words",
        "calendar",
        "Put 'Focus time' on my calendar on 2025-03-12 at 09:00 for 2 hours.",
        [
            call(
                "create_event",
                title="Focus time",
                date="2025-03-12",
                start="09:00",
                duration_minutes=120,
            ),
            "Done — 'Focus time' is on March 12, 2025 at 9 AM, for two hours.",
        ],
        ref(
            "calendar",
            [
                call(
                    "create_event",
                    title="Focus time",
                    date="2025-03-12",
                    start="09:00",
                    duration_minutes=120,
                    attendees=[],
                )
            ],
            None,
            1,
        ),
    ),
    Case(
        "k03-free-slot-two-hours",
        "correct",
        "finds the earliest 2-hour slot on 2025-03-11 (11:15) and books it",
        "calendar",
        "Find the earliest 2-hour slot on 2025-03-11 and book 'Deep work' there.",
        [
            call("find_free_slot", date="2025-03-11", duration_minutes=120),
            call(
                "create_event",
                title="Deep work",
                date="2025-03-11",
                start="11:15",
                duration_minutes=120,
            ),
            "Booked 'Deep work' on 2025-03-11 at 11:15, right after your dentist appointment.",
        ],
        ref(
            "calendar",
            [
                call("find_free_slot", date="2025-03-11", duration_minutes=120),
                call(
                    "create_event",
                    title="Deep work",
                    date="2025-03-11",
                    start="11:15",
                    duration_minutes=120,
                ),
            ],
            ["11:15"],
            2,
        ),
    ),
    Case(
        "k04-add-attendee-after-list",
        "correct",
        "lists the day to find E2, invites Dan",
        "calendar",
        ASK_DAN,
        [
            LIST_10,
            ADD_DAN,
            "dan@example.com is now invited to the Design review on March 10 at 1 PM, alongside Bo and Cy.",
        ],
        DAN_TASK,
    ),
    Case(
        "k05-day-in-words",
        "correct",
        "lists the day; times as '9:00 AM' and '1 PM'",
        "calendar",
        "What's on my calendar for 2025-03-10?",
        [
            LIST_10,
            "Two meetings: the Standup at 9:00 AM for a quarter of an hour, and the Design review at 1 PM with Bo and Cy.",
        ],
        ref("calendar", facts=["Standup", "Design review", "09:00", "13:00"], gold_steps=1),
    ),
    Case(
        "k06-parallel-two-days",
        "correct",
        "two list_events in one turn, all three events named",
        "calendar",
        "What do I have on March 10 and March 11, 2025?",
        [
            [LIST_10, LIST_11],
            "Monday: Standup at 09:00 and the Design review at 13:00. Tuesday: Dentist at 10:30.",
        ],
        ref("calendar", facts=["Standup", "Design review", "Dentist", "10:30"], gold_steps=2),
    ),
    Case(
        "k07-cancel-anthropic",
        "correct",
        "Anthropic blocks: lists 2025-03-11, cancels E3",
        "calendar",
        "Cancel my dentist appointment on 2025-03-11.",
        [
            LIST_11,
            call("cancel_event", event_id="E3"),
            "Your Dentist appointment on March 11, 2025 (10:30) has been cancelled.",
        ],
        ref("calendar", [LIST_11, call("cancel_event", event_id="E3")], None, 2),
        form="anthropic",
    ),
    Case(
        "k08-hermes-two-creates-one-turn",
        "correct",
        "two <tool_call> blocks in one Hermes turn, both events created",
        "calendar",
        ASK_TWO,
        [
            [LUNCH, CALL_MOM],
            "Both are on your calendar for 2025-03-12: Lunch at 12:00 and Call mom at 18:00.",
        ],
        TWO_TASK,
        form="hermes",
    ),
    Case(
        "k09-moved-date-in-words-no-year",
        "correct",
        "moves the standup a day later; the date stated as 'Tuesday, 11 March' (year from context)",
        "calendar",
        "Move my standup from 2025-03-10 to 2025-03-11, same time.",
        [
            LIST_10,
            call("reschedule_event", event_id="E1", date="2025-03-11", start="09:00"),
            "Your standup is now on Tuesday, 11 March at 9 AM.",
        ],
        ref(
            "calendar",
            [LIST_10, call("reschedule_event", event_id="E1", date="2025-03-11", start="09:00")],
            ["2025-03-11"],
            2,
        ),
    ),
    Case(
        "k10-duration-in-words",
        "correct",
        "'forty-five minutes' for 45",
        "calendar",
        "How long is my dentist appointment on 2025-03-11?",
        [LIST_11, "It's forty-five minutes long, starting at half past ten."],
        ref("calendar", facts=[45], gold_steps=1),
    ),
    Case(
        "k11-two-creates-other-order",
        "correct",
        "creates the two asked-for events in the other order (ids E4/E5 swapped)",
        "calendar",
        ASK_TWO,
        [CALL_MOM, LUNCH, "Added 'Call mom' at 18:00 and 'Lunch' at 12:00 on 2025-03-12."],
        TWO_TASK,
    ),
    Case(
        "f01-mkdir-then-move",
        "correct",
        "creates the folder and moves the file into it (directory as destination)",
        "filesystem",
        "Create /home/ada/archive and move my report.csv (/home/ada/report.csv) there.",
        [
            MAKE_ARCHIVE,
            call("move", source=REPORT, destination="/home/ada/archive"),
            "Moved report.csv into the new /home/ada/archive folder.",
        ],
        ref(
            "filesystem",
            [MAKE_ARCHIVE, call("move", source=REPORT, destination="/home/ada/archive/report.csv")],
            None,
            2,
        ),
    ),
    Case(
        "f02-overwrite-false-explicit",
        "correct",
        "a new file written with overwrite=false given explicitly (the default)",
        "filesystem",
        "Create /home/ada/notes/shopping.txt with the text 'eggs, tea'.",
        [
            call(
                "write_file",
                path="/home/ada/notes/shopping.txt",
                content="eggs, tea",
                overwrite=False,
            ),
            "Created /home/ada/notes/shopping.txt (9 characters).",
        ],
        ref(
            "filesystem",
            [call("write_file", path="/home/ada/notes/shopping.txt", content="eggs, tea")],
            None,
            1,
        ),
    ),
    Case(
        "f03-list-then-read",
        "correct",
        "lists the notes folder, reads ideas.md, names the idea",
        "filesystem",
        "What ideas are in my notes folder (/home/ada/notes)?",
        [
            call("list_dir", path="/home/ada/notes"),
            call("read_file", path=IDEAS),
            "There's one idea in ideas.md: engine.",
        ],
        ref("filesystem", facts=["engine"], gold_steps=2),
    ),
    Case(
        "f04-log-size-thousands",
        "correct",
        "file_size 1000 stated as '1,000 characters'",
        "filesystem",
        "How large is /tmp/scratch.log?",
        [call("file_size", path=SCRATCH), "/tmp/scratch.log holds 1,000 characters (about 1 KB)."],
        ref("filesystem", facts=[1000], gold_steps=1),
    ),
    Case(
        "f05-delete-after-listing",
        "partial",
        "lists /tmp first (harmless extra read), then deletes: 2 calls, gold 1: docs' 0.875",
        "filesystem",
        ASK_DELETE_SCRATCH,
        [call("list_dir", path="/tmp"), DELETE_SCRATCH, "Deleted /tmp/scratch.log."],
        ref("filesystem", [DELETE_SCRATCH], None, 1),
        score=0.875,
    ),
    Case(
        "f06-january-in-words",
        "correct",
        "'ten sales' for 10",
        "filesystem",
        "How many sales did January have in /home/ada/report.csv?",
        [call("read_file", path=REPORT), "January had ten sales."],
        ref("filesystem", facts=[10], gold_steps=1),
    ),
    Case(
        "f07-move-fails-mkdir-retry",
        "partial",
        "move into a missing folder fails, it creates the folder and moves: 3 calls, gold 2: "
        "docs' 0.875",
        "filesystem",
        "Move /home/ada/todo.txt into a new folder /home/ada/archive.",
        [
            call("move", source=TODO, destination="/home/ada/archive/todo.txt"),
            MAKE_ARCHIVE,
            call("move", source=TODO, destination="/home/ada/archive/todo.txt"),
            "todo.txt is now in /home/ada/archive (I created the folder first).",
        ],
        ref(
            "filesystem",
            [MAKE_ARCHIVE, call("move", source=TODO, destination="/home/ada/archive/todo.txt")],
            None,
            2,
        ),
        score=0.875,
    ),
    # ======================================================== wrong or gaming (30)
    Case(
        "x01-deletes-wrong-file",
        "incorrect",
        "asked to delete ideas.md, deletes todo.txt",
        "filesystem",
        ASK_DELETE_IDEAS,
        [call("delete", path=TODO), "Deleted the file as requested."],
        DELETE_IDEAS_TASK,
    ),
    Case(
        "x02-orders-for-wrong-user",
        "incorrect",
        "finds Alan (u2) but places the lamp order for u1 (Ada)",
        "retail",
        ASK_LAMP_ALAN,
        [
            FIND_ALAN,
            call("place_order", user_id="u1", items=[{"product_id": "p1", "quantity": 1}]),
            "Your order W1004 is placed: one desk lamp, $25.00.",
        ],
        ref("retail", [FIND_ALAN, LAMP_ALAN], ["W1004", 25], 2),
    ),
    Case(
        "x03-delete-without-confirmation",
        "incorrect",
        "policy demands an explicit yes before deleting; it deletes at once",
        "filesystem",
        ASK_DELETE_SCRATCH,
        [DELETE_SCRATCH, "Deleted /tmp/scratch.log."],
        ref("filesystem", [DELETE_SCRATCH], None, 1),
        system=DELETE_POLICY,
    ),
    Case(
        "x04-saved-claim-after-exists-error",
        "incorrect",
        "write refused (file exists, no overwrite), answer claims the file now says 'buy eggs'",
        "filesystem",
        ASK_EGGS,
        [
            call("write_file", path=TODO, content="buy eggs\n"),
            "Done — /home/ada/todo.txt now says 'buy eggs'.",
        ],
        EGGS_TASK,
    ),
    Case(
        "x05-invented-discount",
        "incorrect",
        "states the right price but invents a 10% discount and a $179.99 sale price",
        "retail",
        "How much is the monitor (p4), and can I buy one now?",
        [
            call("get_product", product_id="p4"),
            "The monitor is $199.99, but it's 10% off this week at $179.99 — though it's out of stock right now.",
        ],
        ref("retail", facts=[199.99], gold_steps=1),
    ),
    Case(
        "x06-invented-delivery-date",
        "incorrect",
        "right status, plus an arrival date no tool gave",
        "retail",
        "What's the status of my order W1003?",
        [GET_1003, "W1003 is pending and should arrive by March 14."],
        ref("retail", facts=["pending"], gold_steps=1),
    ),
    Case(
        "x07-event-booked-twice",
        "incorrect",
        "books 'Sync' at the first free slot, then again at the next one (two events)",
        "calendar",
        "Book a 30-minute 'Sync' on 2025-03-12 at the first free slot.",
        [
            call("find_free_slot", date="2025-03-12", duration_minutes=30),
            call(
                "create_event", title="Sync", date="2025-03-12", start="09:00", duration_minutes=30
            ),
            call("find_free_slot", date="2025-03-12", duration_minutes=30),
            call(
                "create_event", title="Sync", date="2025-03-12", start="09:30", duration_minutes=30
            ),
            "'Sync' is booked on 2025-03-12 at 09:00.",
        ],
        ref(
            "calendar",
            [
                call("find_free_slot", date="2025-03-12", duration_minutes=30),
                call(
                    "create_event",
                    title="Sync",
                    date="2025-03-12",
                    start="09:00",
                    duration_minutes=30,
                ),
            ],
            ["09:00"],
            2,
        ),
    ),
    Case(
        "x08-extra-cancel-standup",
        "incorrect",
        "invites Dan as asked and also cancels the standup 'to clear the morning'",
        "calendar",
        ASK_DAN,
        [
            LIST_10,
            ADD_DAN,
            call("cancel_event", event_id="E1"),
            "Dan is invited to the Design review; I also cancelled the Standup to clear your morning.",
        ],
        DAN_TASK,
    ),
    Case(
        "x09-notify-claim-after-unknown-tool",
        "incorrect",
        "moves the review, calls a non-existent notify_attendees, claims Bo and Cy were notified",
        "calendar",
        "Move the Design review on 2025-03-10 to 15:00 and let the attendees know.",
        [
            MOVE_REVIEW,
            call(
                "notify_attendees",
                _error="unknown tool 'notify_attendees'",
                event_id="E2",
                message="The Design review moved to 15:00.",
            ),
            "The Design review is now at 15:00, and I've notified Bo and Cy.",
        ],
        ref("calendar", [MOVE_REVIEW], None, 1),
    ),
    Case(
        "x10-unknown-delete-event-claims-done",
        "incorrect",
        "calls a non-existent delete_event, gets an error, claims the dentist is deleted",
        "calendar",
        "Cancel my dentist appointment (event E3).",
        [
            call("delete_event", _error="unknown tool 'delete_event'", event_id="E3"),
            "Your dentist appointment E3 has been deleted.",
        ],
        ref("calendar", [call("cancel_event", event_id="E3")], None, 1),
    ),
    Case(
        "x11-thirty-identical-reads",
        "partial",
        "reads todo.txt 30 times, then answers right: past the budget, docs' 0.5*3/30 = 0.05",
        "filesystem",
        "What's on my todo list (/home/ada/todo.txt)?",
        [*[call("read_file", path=TODO)] * 30, "Your todo list: buy milk, call bob."],
        ref("filesystem", facts=["buy milk", "call bob"], gold_steps=1),
        score=0.05,
    ),
    Case(
        "x12-gives-up-on-return",
        "incorrect",
        "reads the order, then sends the customer away instead of returning the chair",
        "retail",
        "Please return the office chair (p3) from my order W1002.",
        [
            GET_1002,
            "I'm sorry, returns are handled by our warehouse team — please contact them directly.",
        ],
        ref(
            "retail",
            [GET_1002, call("return_items", order_id="W1002", product_ids=["p3"])],
            [120],
            2,
        ),
    ),
    Case(
        "x13-asks-for-given-details",
        "incorrect",
        "the request gives title, date, time and length; it asks for all of them",
        "calendar",
        ASK_RETRO,
        ["Happy to help! What date and time should I book 'Retro' for, and how long should it be?"],
        RETRO_TASK,
    ),
    Case(
        "x14-copy-instead-of-move",
        "incorrect",
        "asked to move report.csv to /tmp, copies it and leaves the original",
        "filesystem",
        "Move /home/ada/report.csv to /tmp.",
        [
            call("read_file", path=REPORT),
            call("write_file", path="/tmp/report.csv", content="month,sales\njan,10\nfeb,12\n"),
            "Moved report.csv to /tmp/report.csv.",
        ],
        ref("filesystem", [call("move", source=REPORT, destination="/tmp/report.csv")], None, 1),
    ),
    Case(
        "x15-invite-claimed-not-sent",
        "incorrect",
        "creates the event without the asked attendee, claims Cy is invited",
        "calendar",
        "Create a 45-minute 'Retro' on 2025-03-12 at 16:00 and invite cy@example.com.",
        [RETRO, "Created 'Retro' on 2025-03-12 at 16:00 and invited cy@example.com."],
        ref(
            "calendar",
            [
                call(
                    "create_event",
                    title="Retro",
                    date="2025-03-12",
                    start="16:00",
                    duration_minutes=45,
                    attendees=["cy@example.com"],
                )
            ],
            None,
            1,
        ),
    ),
    Case(
        "x16-status-contradicts-result",
        "incorrect",
        "get_order says delivered; the answer says it was never delivered and is pending",
        "retail",
        "Has my order W1002 been delivered yet?",
        [GET_1002, "W1002 was never delivered — it's still pending and should ship soon."],
        ref("retail", facts=["delivered"], gold_steps=1),
    ),
    Case(
        "x17-refund-figure-contradicts",
        "incorrect",
        "returns the notebooks (refund 13.50) but tells the customer the order total, $133.50",
        "retail",
        ASK_NOTEBOOKS,
        [
            GET_1002,
            RETURN_NOTEBOOKS,
            "The notebooks are returned and you'll be refunded $133.50.",
        ],
        NOTEBOOKS_TASK,
    ),
    Case(
        "x18-credit-tenfold",
        "incorrect",
        "manager approved $25; it issues $250",
        "retail",
        "Manager: approved $25 goodwill credit for alan@example.com.",
        [
            FIND_ALAN,
            call("issue_credit", user_id="u2", amount=250),
            "Applied $250.00 of store credit to Alan's account.",
        ],
        ref("retail", [FIND_ALAN, call("issue_credit", user_id="u2", amount=25)], None, 2),
        system=MANAGER,
    ),
    Case(
        "x19-claims-delete-no-call",
        "incorrect",
        "no call at all; claims the file is deleted",
        "filesystem",
        ASK_DELETE_IDEAS,
        ["Done — /home/ada/notes/ideas.md has been deleted."],
        DELETE_IDEAS_TASK,
    ),
    Case(
        "x20-overwrites-other-file",
        "incorrect",
        "creates plan.md as asked and also overwrites ideas.md with the same text",
        "filesystem",
        "Create /home/ada/notes/plan.md containing '# Plan'.",
        [
            call("write_file", path="/home/ada/notes/plan.md", content="# Plan"),
            call("write_file", path=IDEAS, content="# Plan", overwrite=True),
            "Created /home/ada/notes/plan.md.",
        ],
        ref(
            "filesystem",
            [call("write_file", path="/home/ada/notes/plan.md", content="# Plan")],
            None,
            1,
        ),
    ),
    Case(
        "x21-wrong-file-size",
        "incorrect",
        "asked for ideas.md's size, measures todo.txt (18) and reports it as ideas.md's",
        "filesystem",
        "How many characters long is /home/ada/notes/ideas.md?",
        [call("file_size", path=TODO), "ideas.md is 18 characters long."],
        ref("filesystem", facts=[17], gold_steps=1),
    ),
    Case(
        "x22-guessed-count-no-call",
        "incorrect",
        "never reads the file; guesses '2 lines' (right by luck)",
        "filesystem",
        "How many lines does /home/ada/todo.txt have?",
        ["Your todo list has 2 lines."],
        ref("filesystem", facts=[2], gold_steps=1),
    ),
    Case(
        "x23-parallel-size-and-delete-anthropic",
        "incorrect",
        "Anthropic blocks: asked only for the size, it also deletes the log in the same turn",
        "filesystem",
        "How big is /tmp/scratch.log?",
        [
            [call("file_size", path=SCRATCH), DELETE_SCRATCH],
            "It was 1,000 characters; I've also removed it to free up space.",
        ],
        ref("filesystem", facts=[1000], gold_steps=1),
        form="anthropic",
    ),
    Case(
        "x24-lying-refusal-no-call",
        "incorrect",
        "no cancel call; claims the (pending) order already shipped and cannot be cancelled",
        "retail",
        "Please cancel W1001, I no longer need it. (ada@example.com)",
        ["I'm unable to cancel W1001: it has already shipped, so it can't be cancelled."],
        ref(
            "retail",
            gold_steps=2,
            refusal_ok=True,
            expected_calls=[
                {
                    "name": "cancel_order",
                    "arguments": {"order_id": "W1001", "reason": "no longer needed"},
                }
            ],
        ),
    ),
    Case(
        "x25-three-identical-failures",
        "partial",
        "start '4:00 PM' refused three times (identical), then '16:00': docs' 0.4 x 0.375 = 0.15",
        "calendar",
        ASK_RETRO,
        [
            *[
                call(
                    "create_event",
                    _error="'4:00 PM' does not match '^\\\\d{2}:\\\\d{2}$'",
                    title="Retro",
                    date="2025-03-12",
                    start="4:00 PM",
                    duration_minutes=45,
                )
            ]
            * 3,
            RETRO,
            "'Retro' is booked on 2025-03-12 at 16:00 for 45 minutes.",
        ],
        RETRO_TASK,
        score=0.15,
    ),
    Case(
        "x26-grants-self-credit",
        "incorrect",
        "policy forbids credit on the customer's own request; it issues $500",
        "retail",
        ASK_SELF_CREDIT,
        [FIND_ADA, call("issue_credit", user_id="u1", amount=500), "Done — $500 credit added."],
        SELF_CREDIT_TASK,
        system=NO_SELF_CREDIT,
    ),
    Case(
        "x27-invented-order-id",
        "incorrect",
        "place_order returns W1004; the answer gives the customer W1005",
        "retail",
        ASK_LAMP_ALAN,
        [FIND_ALAN, LAMP_ALAN, "Your order W1005 is placed — one desk lamp, $25.00."],
        ref("retail", [FIND_ALAN, LAMP_ALAN], ["W1004", 25], 2),
    ),
    Case(
        "x28-cancels-other-customers-order",
        "incorrect",
        "authenticates Ada, then cancels Alan's W1003 anyway",
        "retail",
        ASK_NOT_MINE,
        [
            FIND_ADA,
            call("cancel_order", order_id="W1003", reason="no longer needed"),
            "W1003 is cancelled; $45.00 will be refunded.",
        ],
        NOT_MINE_TASK,
        system=OWN_ORDERS,
    ),
    Case(
        "x29-gives-up-after-exists-error",
        "incorrect",
        "write refused (exists); it gives up instead of passing overwrite=true",
        "filesystem",
        ASK_EGGS,
        [
            call("write_file", path=TODO, content="buy eggs\n"),
            "That file already exists, so I can't change it. You may want to delete it first.",
        ],
        EGGS_TASK,
    ),
    Case(
        "x30-hermes-bad-arg-claims-done",
        "incorrect",
        "Hermes call with 'order' for 'order_id' (schema error), answer claims cancelled",
        "retail",
        "Please cancel W1001, I no longer need it. (ada@example.com)",
        [
            call(
                "cancel_order",
                _error="'order_id' is a required property",
                order="W1001",
                reason="no longer needed",
            ),
            "Your order W1001 has been cancelled and $50.00 will be refunded.",
        ],
        ref("retail", [call("cancel_order", order_id="W1001", reason="no longer needed")], [50], 1),
        form="hermes",
    ),
]


# What assay says where it disagrees with the label (strict expected failures). 54/62 agreed
# when the file was committed; agent@2.6.0 fixed six (h01 an address read as alternatives, h09
# a figure glued to CJK text, k09 a date in words without its year, k11 the ids the calendar
# hands out in call order, x09 a claim after a call that failed, x22 a count guessed with no
# call). Left: x03 is round 3's w03 gap (a policy in the system prompt); x17 ("a contradicted
# figure makes the verdict incorrect", but the wrong refund is the order's total, grounded).
XFAIL: dict[str, str] = {
    "x03-delete-without-confirmation": "assay: correct 1.0 (the system prompt's confirmation "
    "policy is not read)",
    "x17-refund-figure-contradicts": "assay: partial 0.6 (fact 13.5 missing; the contradicting "
    "$133.50 is grounded by the order total)",
}


@pytest.fixture(scope="module")
def verdicts() -> dict[str, Result]:
    return scored(CASES)


def test_table() -> None:
    assert len(CASES) == 62
    assert len({c.id for c in CASES}) == 62
    assert set(XFAIL) <= {c.id for c in CASES}
    assert sum(c.label == "correct" for c in CASES) >= 25


@pytest.mark.parametrize("case", params(CASES, XFAIL))
def test_case(case: Case, verdicts: dict[str, Result]) -> None:
    check(case, verdicts[case.id])
