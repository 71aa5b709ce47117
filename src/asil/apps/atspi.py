"""One connection to an AT-SPI accessibility bus, spoken over D-Bus with jeepney.

The calls every reader of a widget tree needs: the registry's applications, a widget's children, role,
name, states and bounding box on the screen. Nautilus's adapter reads its file views with it
(``asil.adapters.nautilus.atspi``), the GUI observation reads a whole window tree
(``asil.gui.accessibility``).
"""

from __future__ import annotations

from typing import Any

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
PROPERTIES = "org.freedesktop.DBus.Properties"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
SCREEN_COORDS = 0  # ATSPI_COORD_TYPE_SCREEN
CALL_TIMEOUT_S = 5.0
Ref = tuple[str, str]  # (bus name, object path)
Call = tuple[Ref, str, str, "str | None", tuple[Any, ...]]  # ref, interface, method, signature, body


class BusSilent(Exception):
    """The accessibility bus (or the program on it) did not answer a call in time."""


class AtSpiBus:
    """A connection to one session's accessibility bus."""

    def __init__(self, address: str, timeout_s: float = CALL_TIMEOUT_S):
        from jeepney.io.blocking import open_dbus_connection

        self.connection = open_dbus_connection(address, auth_timeout=timeout_s)
        self.timeout_s = timeout_s

    def close(self) -> None:
        try:
            self.connection.close()
        except OSError:
            pass

    def call(self, ref: Ref, interface: str, method: str, signature: str | None = None,
             body: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        """One method call; BusSilent when no answer came in time, LookupError when the widget is gone."""
        from jeepney import DBusAddress, MessageType, new_method_call

        message = new_method_call(DBusAddress(ref[1], bus_name=ref[0], interface=interface), method, signature, body)
        try:
            reply = self.connection.send_and_get_reply(message, timeout=self.timeout_s)
        except (TimeoutError, OSError) as exc:
            raise BusSilent(f"{method} ({exc or 'timed out'})") from None
        if reply.header.message_type == MessageType.error:
            raise LookupError(reply.body[0] if reply.body else method)  # the widget went away meanwhile
        return tuple(reply.body)

    def batch(self, calls: list[Call]) -> list[tuple[Any, ...] | LookupError]:
        """Several method calls sent at once and their replies in order (one round trip instead of one per call):
        each a reply body, or a LookupError for a call whose widget went away; BusSilent as for ``call``."""
        from jeepney import DBusAddress, MessageType, new_method_call
        from jeepney.io.blocking import deadline_to_timeout, timeout_to_deadline
        from jeepney.low_level import HeaderFields

        serials = []
        for ref, interface, method, signature, body in calls:
            serial = next(self.connection.outgoing_serial)
            address = DBusAddress(ref[1], bus_name=ref[0], interface=interface)
            self.connection.send_message(new_method_call(address, method, signature, body), serial=serial)
            serials.append(serial)
        replies: dict[int, tuple[Any, ...] | LookupError] = {}
        deadline = timeout_to_deadline(self.timeout_s)
        while len(replies) < len(serials):
            try:
                message = self.connection.receive(timeout=deadline_to_timeout(deadline))
            except (TimeoutError, OSError) as exc:
                raise BusSilent(f"{len(serials) - len(replies)} of {len(serials)} calls ({exc or 'timed out'})") from None
            serial = message.header.fields.get(HeaderFields.reply_serial, -1)
            if serial not in serials:
                continue  # a signal, or a late reply to an earlier call
            failed = message.header.message_type == MessageType.error
            replies[serial] = LookupError(message.body[0] if message.body else "error") if failed else tuple(message.body)
        return [replies[serial] for serial in serials]

    def name(self, ref: Ref) -> str:
        (value,) = self.call(ref, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name"))
        return str(value[1])

    def children(self, ref: Ref) -> list[Ref]:
        return [(str(bus), str(path)) for bus, path in self.call(ref, ACCESSIBLE, "GetChildren")[0]]

    def role(self, ref: Ref) -> int:
        return int(self.call(ref, ACCESSIBLE, "GetRole")[0])

    def role_name(self, ref: Ref) -> str:
        return str(self.call(ref, ACCESSIBLE, "GetRoleName")[0])

    def states(self, ref: Ref) -> int:
        """The widget's state set as one integer (bit n is AT-SPI state n)."""
        low, high = self.call(ref, ACCESSIBLE, "GetState")[0][:2]
        return int(low) | int(high) << 32

    def extents(self, ref: Ref) -> tuple[int, int, int, int] | None:
        """(x, y, width, height) on the screen, or None for a widget without a Component interface."""
        try:
            box = self.call(ref, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,))[0]
        except LookupError:
            return None
        return int(box[0]), int(box[1]), int(box[2]), int(box[3])

    def applications(self) -> list[Ref]:
        """The applications registered on the bus (the registry root's children)."""
        return self.children(REGISTRY)


__all__ = ["ACCESSIBLE", "COMPONENT", "PROPERTIES", "REGISTRY", "SCREEN_COORDS", "AtSpiBus", "BusSilent", "Call", "Ref"]
