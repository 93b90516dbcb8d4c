"""A safe calculator: arithmetic only, evaluated by walking Python's syntax tree (never ``eval``).

Allowed: numbers, ``+ - * / // % **`` (``^`` also means power), unary ``+``/``-``, parentheses, the
constants ``pi``, ``e``, ``tau``, ``inf`` and the functions listed in :data:`FUNCTIONS`. Anything else
(names, attributes, strings, calls to other functions) is refused with a clear message. Exponents and
factorials are bounded so that no expression can make the app hang or exhaust memory.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Annotated

from pydantic import Field

from desktop_agent import ToolError, tool

#: Longest accepted expression, in characters.
MAX_LENGTH = 500
#: Largest absolute exponent in ``a ** b``.
MAX_EXPONENT = 10_000
#: Largest accepted result size for integers, in decimal digits.
MAX_DIGITS = 1_000
#: Largest argument of ``factorial``.
MAX_FACTORIAL = 450

CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}


def _factorial(n: float) -> int:
    if isinstance(n, float):
        if not n.is_integer():
            raise ToolError("factorial() needs a whole number")
        n = int(n)
    if n < 0:
        raise ToolError("factorial() needs a number >= 0")
    if n > MAX_FACTORIAL:
        raise ToolError(f"factorial() is limited to n <= {MAX_FACTORIAL}")
    return math.factorial(n)


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


FUNCTIONS = {
    "sqrt": math.sqrt, "cbrt": math.cbrt, "exp": math.exp, "log": _log, "ln": math.log,
    "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "degrees": math.degrees, "radians": math.radians, "hypot": math.hypot,
    "abs": abs, "round": round, "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc,
    "min": min, "max": max, "factorial": _factorial, "gcd": math.gcd,
}

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_SYMBOLS = {"×": "*", "·": "*", "÷": "/", "−": "-", "–": "-", "^": "**", "²": "**2", "³": "**3"}


def _power(base: float, exponent: float) -> float:
    if isinstance(exponent, (int, float)) and abs(exponent) > MAX_EXPONENT:
        raise ToolError(f"exponent {exponent:g} is too large (the limit is {MAX_EXPONENT})")
    big_int = isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1
    if big_int and exponent * math.log10(abs(base)) > MAX_DIGITS:
        raise ToolError(f"the result would have more than {MAX_DIGITS} digits")
    result = base**exponent
    if isinstance(result, complex):
        raise ToolError("the result is not a real number (a negative number to a fractional power)")
    return result


def _check_size(value: float) -> float:
    if isinstance(value, int) and value.bit_length() > MAX_DIGITS * 3.33:
        raise ToolError(f"the result would have more than {MAX_DIGITS} digits")
    return value


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ToolError(f"only numbers are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, (ast.Pow, ast.BitXor)):
            return _check_size(_power(left, right))
        op = _BINARY.get(type(node.op))
        if op is None:
            raise ToolError(f"the operator {type(node.op).__name__} is not supported")
        return _check_size(op(left, right))
    if isinstance(node, ast.UnaryOp):
        op = _UNARY.get(type(node.op))
        if op is None:
            raise ToolError(f"the operator {type(node.op).__name__} is not supported")
        return op(_eval(node.operand))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise ToolError(f"unknown name '{node.id}'; known constants: {', '.join(CONSTANTS)}")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise ToolError(f"unknown function '{shown}'; available: {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise ToolError("functions take positional arguments only")
        args = [_eval(a) for a in node.args]
        try:
            return _check_size(FUNCTIONS[node.func.id](*args))
        except TypeError as exc:
            raise ToolError(f"{node.func.id}(): {exc}") from None
    raise ToolError(f"'{ast.unparse(node)}' is not allowed in a calculation")


def _format(value: float) -> str:
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return f"{value:.15g}"  # 0.1 + 0.2 → 0.3, not 0.30000000000000004
    return str(value)


@tool(read_only=True)
def calculator(
    expression: Annotated[
        str,
        Field(description="An arithmetic expression, e.g. '2 * (3 + 4) ** 2', 'sqrt(2) / 2' or "
                          "'17 % 5'. Operators: + - * / // % ** (or ^); functions such as sqrt, log, "
                          "sin, cos, round, factorial; constants pi and e."),
    ],
) -> str:
    """Evaluate an arithmetic expression — a sum, product, percentage, power, square root — and return the
    result as text.

    Use it for any calculation instead of computing in your head. Angles for sin, cos and tan are in
    radians (use radians(x) to convert degrees).
    """
    text = expression.strip()
    for symbol, replacement in _SYMBOLS.items():
        text = text.replace(symbol, replacement)
    if not text:
        raise ToolError("the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ToolError(f"the expression is longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"'{expression}' is not a valid expression ({exc.msg})") from None
    except (RecursionError, MemoryError):
        raise ToolError("the expression is nested too deeply") from None
    try:
        value = _eval(tree)
    except RecursionError:
        raise ToolError("the expression is nested too deeply") from None
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except OverflowError:
        raise ToolError("the result is too large") from None
    except ValueError as exc:  # math domain error, …
        raise ToolError(f"math error: {exc}") from None
    return _format(value)
