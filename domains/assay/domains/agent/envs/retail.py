"""A retail store: users, products with stock, and orders that move through statuses.

Order statuses: ``pending`` (can be cancelled or re-addressed), ``delivered`` (items can be
returned), ``cancelled``, ``returned``. Prices are dollars as numbers.
"""

from __future__ import annotations

from assay.verifiers.agent.environment import Environment, ToolError, tool

from assay.types import JSON

_ADDRESS = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"},
                   "zip": {"type": "string"}},
    "required": ["street", "city", "zip"],
    "additionalProperties": False,
}  # fmt: skip
_REASONS = ["no longer needed", "ordered by mistake"]


class RetailEnv(Environment):
    """Orders of a small shop (tau-bench's retail domain in spirit, much smaller)."""

    name = "retail"
    version = "1"
    unordered = ("users.*.orders", "orders.*.returned")

    @classmethod
    def initial_state(cls) -> dict[str, JSON]:
        home = {"street": "1 Elm St", "city": "Springfield", "zip": "01101"}
        return {
            "users": {
                "u1": {"name": "Ada Lovelace", "email": "ada@example.com", "address": home,
                       "orders": ["W1001", "W1002"], "credit": 0},
                "u2": {"name": "Alan Turing", "email": "alan@example.com",
                       "address": {"street": "9 Oak Rd", "city": "Bletchley", "zip": "02202"},
                       "orders": ["W1003"], "credit": 0},
            },
            "products": {
                "p1": {"name": "desk lamp", "price": 25.0, "stock": 4},
                "p2": {"name": "notebook", "price": 4.5, "stock": 20},
                "p3": {"name": "office chair", "price": 120.0, "stock": 1},
                "p4": {"name": "monitor", "price": 199.99, "stock": 0},
            },
            "orders": {
                "W1001": {"user_id": "u1", "status": "pending", "address": dict(home),
                          "items": [{"product_id": "p1", "quantity": 2, "price": 25.0}],
                          "total": 50.0, "refund": 0, "returned": []},
                "W1002": {"user_id": "u1", "status": "delivered", "address": dict(home),
                          "items": [{"product_id": "p2", "quantity": 3, "price": 4.5},
                                    {"product_id": "p3", "quantity": 1, "price": 120.0}],
                          "total": 133.5, "refund": 0, "returned": []},
                "W1003": {"user_id": "u2", "status": "pending",
                          "address": {"street": "9 Oak Rd", "city": "Bletchley", "zip": "02202"},
                          "items": [{"product_id": "p2", "quantity": 10, "price": 4.5}],
                          "total": 45.0, "refund": 0, "returned": []},
            },
            "next_order": 1004,
        }  # fmt: skip

    def _order(self, order_id: str) -> dict[str, JSON]:
        order: dict[str, JSON] | None = self.state["orders"].get(order_id)
        if order is None:
            raise ToolError(f"order {order_id!r} not found")
        return order

    def _user(self, user_id: str) -> dict[str, JSON]:
        user: dict[str, JSON] | None = self.state["users"].get(user_id)
        if user is None:
            raise ToolError(f"user {user_id!r} not found")
        return user

    @tool("Find a user id by email.", {"email": {"type": "string"}}, ["email"])
    def find_user(self, email: str) -> str:
        for user_id, user in self.state["users"].items():
            if user["email"].lower() == email.strip().lower():
                return str(user_id)
        raise ToolError(f"no user with email {email!r}")

    @tool("Get a user's profile and order ids.", {"user_id": {"type": "string"}}, ["user_id"])
    def get_user(self, user_id: str) -> JSON:
        return self._user(user_id)

    @tool("Get an order's status, items and total.", {"order_id": {"type": "string"}},
          ["order_id"])  # fmt: skip
    def get_order(self, order_id: str) -> JSON:
        return self._order(order_id)

    @tool("Get a product's name, price and stock.", {"product_id": {"type": "string"}},
          ["product_id"])  # fmt: skip
    def get_product(self, product_id: str) -> JSON:
        product = self.state["products"].get(product_id)
        if product is None:
            raise ToolError(f"product {product_id!r} not found")
        return product

    @tool("Cancel a pending order; the total is refunded and items restocked.",
          {"order_id": {"type": "string"}, "reason": {"type": "string", "enum": _REASONS}},
          ["order_id", "reason"], mutates=True)  # fmt: skip
    def cancel_order(self, order_id: str, reason: str) -> JSON:
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError(f"order {order_id} is {order['status']}, only pending orders cancel")
        for item in order["items"]:
            self.state["products"][item["product_id"]]["stock"] += item["quantity"]
        order.update(status="cancelled", refund=order["total"], reason=reason)
        return {"order_id": order_id, "status": "cancelled", "refund": order["total"]}

    @tool("Change the shipping address of a pending order.",
          {"order_id": {"type": "string"}, "address": _ADDRESS}, ["order_id", "address"],
          mutates=True)  # fmt: skip
    def update_address(self, order_id: str, address: dict[str, str]) -> JSON:
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError(f"order {order_id} is {order['status']}; its address is fixed")
        order["address"] = dict(address)
        return {"order_id": order_id, "address": order["address"]}

    @tool("Return delivered items of an order; their price is refunded.",
          {"order_id": {"type": "string"},
           "product_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
          ["order_id", "product_ids"], mutates=True)  # fmt: skip
    def return_items(self, order_id: str, product_ids: list[str]) -> JSON:
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ToolError(f"order {order_id} is {order['status']}; only delivered items return")
        lines = {item["product_id"]: item for item in order["items"]}
        missing = [p for p in product_ids if p not in lines or p in order["returned"]]
        if missing or len(set(product_ids)) != len(product_ids):
            raise ToolError(f"cannot return {missing or product_ids} from order {order_id}")
        refund = sum(lines[p]["price"] * lines[p]["quantity"] for p in product_ids)
        order["returned"].extend(product_ids)
        order["refund"] = round(order["refund"] + refund, 2)
        if len(order["returned"]) == len(lines):
            order["status"] = "returned"
        return {"order_id": order_id, "refund": refund, "status": order["status"]}

    @tool("Place an order for a user.",
          {"user_id": {"type": "string"},
           "items": {"type": "array", "minItems": 1, "items": {
               "type": "object", "required": ["product_id", "quantity"],
               "additionalProperties": False,
               "properties": {"product_id": {"type": "string"},
                              "quantity": {"type": "integer", "minimum": 1}}}}},
          ["user_id", "items"], mutates=True)  # fmt: skip
    def place_order(self, user_id: str, items: list[dict[str, JSON]]) -> JSON:
        user = self._user(user_id)
        lines = []
        for item in items:
            product = self.state["products"].get(item["product_id"])
            if product is None:
                raise ToolError(f"product {item['product_id']!r} not found")
            if product["stock"] < item["quantity"]:
                raise ToolError(f"only {product['stock']} of {item['product_id']} in stock")
            lines.append({"product_id": item["product_id"], "quantity": item["quantity"],
                          "price": product["price"]})  # fmt: skip
        for line in lines:
            self.state["products"][line["product_id"]]["stock"] -= line["quantity"]
        order_id = f"W{self.state['next_order']}"
        self.state["next_order"] += 1
        total = round(sum(line["price"] * line["quantity"] for line in lines), 2)
        self.state["orders"][order_id] = {
            "user_id": user_id, "status": "pending", "address": dict(user["address"]),
            "items": lines, "total": total, "refund": 0, "returned": [],
        }  # fmt: skip
        user["orders"].append(order_id)
        return {"order_id": order_id, "total": total}

    @tool("Give a user store credit in dollars.",
          {"user_id": {"type": "string"}, "amount": {"type": "number", "exclusiveMinimum": 0}},
          ["user_id", "amount"], mutates=True)  # fmt: skip
    def issue_credit(self, user_id: str, amount: float) -> JSON:
        user = self._user(user_id)
        user["credit"] = round(user["credit"] + amount, 2)
        return {"user_id": user_id, "credit": user["credit"]}
