"""The friends routes: finding, asking, blocking, presence and invitations, and every refusal
(``docs/protocol.md``, "Friends, presence and invitations"; ``docs/security.md``, "The
friends door"). Each runs on the memory store, then on a real Redis."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from app.db.models import Invitation
from tests.app.friends.conftest import FriendsApi, Player


async def friends(api: FriendsApi) -> tuple[Player, Player]:
    ann = await api.player("Ann")
    bea = await api.player("Bea")
    await ann.befriend(bea)
    return ann, bea


def refused(response: object, status: int, code: str) -> None:
    assert getattr(response, "status_code", None) == status, getattr(response, "text", "")
    assert response.json()["code"] == code  # type: ignore[attr-defined]


async def test_a_player_is_found_by_exact_name_only(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")

    found = await ann.ok("GET", "/api/friends/find", params={"name": "Bea"})
    assert found == {"id": bea.id, "name": "Bea"}
    refused(
        await ann.call("GET", "/api/friends/find", params={"name": "Be"}), 404, "no_such_player"
    )
    refused(
        await ann.call("GET", "/api/friends/find", params={"name": "Ann"}), 404, "no_such_player"
    )


async def test_a_friend_link_finds_its_owner(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    link = (await bea.ok("GET", "/api/friends/link"))["code"]
    assert (await bea.ok("GET", "/api/friends/link"))["code"] == link

    assert await ann.ok("GET", f"/api/friends/links/{link}") == {"id": bea.id, "name": "Bea"}
    refused(await ann.call("GET", "/api/friends/links/nothing-here"), 404, "no_such_player")


async def test_a_request_accepted_makes_friends_on_both_sides(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")

    asked = await ann.ok("POST", "/api/friends/requests", json={"id": bea.id})
    assert asked == {"friends": False}
    assert [one["name"] for one in (await ann.panel())["asked"]] == ["Bea"]
    assert [one["name"] for one in (await bea.panel())["asked_me"]] == ["Ann"]
    refused(
        await ann.call("POST", "/api/friends/requests", json={"id": bea.id}), 409, "already_asked"
    )
    refused(await ann.call("POST", f"/api/friends/requests/{bea.id}/accept"), 404, "no_request")

    await bea.ok("POST", f"/api/friends/requests/{ann.id}/accept")
    assert [one["name"] for one in (await ann.panel())["friends"]] == ["Bea"]
    assert [one["name"] for one in (await bea.panel())["friends"]] == ["Ann"]
    refused(
        await bea.call("POST", "/api/friends/requests", json={"id": ann.id}), 409, "already_friends"
    )


async def test_asking_someone_who_asked_you_makes_friends(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    await ann.ok("POST", "/api/friends/requests", json={"id": bea.id})

    assert await bea.ok("POST", "/api/friends/requests", json={"id": ann.id}) == {"friends": True}
    assert [one["name"] for one in (await ann.panel())["friends"]] == ["Bea"]


async def test_a_request_declined_withdrawn_or_a_friend_removed_is_gone(
    friends_api: FriendsApi,
) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    await ann.ok("POST", "/api/friends/requests", json={"id": bea.id})
    await bea.ok("DELETE", f"/api/friends/{ann.id}")
    assert (await ann.panel())["asked"] == []

    await ann.befriend(bea)
    await ann.ok("DELETE", f"/api/friends/{bea.id}")
    assert (await bea.panel())["friends"] == []
    refused(await ann.call("DELETE", f"/api/friends/{bea.id}"), 404, "not_friends")


async def test_a_friend_sees_where_you_are(friends_api: FriendsApi) -> None:
    ann, bea = await friends(friends_api)
    assert (await ann.panel())["friends"][0]["where"] == {
        "online": False,
        "at_table": False,
        "code": None,
    }

    await bea.panel()
    assert (await ann.panel())["friends"][0]["where"] == {
        "online": True,
        "at_table": False,
        "code": None,
    }

    public = await bea.table(visibility="public")
    await bea.panel(**public)
    where = (await ann.panel())["friends"][0]["where"]
    assert where == {"online": True, "at_table": True, "code": public["code"]}


async def test_a_private_tables_code_is_shown_only_to_a_friend_at_it(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    private = await bea.table()
    await bea.panel(**private)
    assert (await ann.panel())["friends"][0]["where"] == {
        "online": True,
        "at_table": True,
        "code": None,
    }

    seat = await ann.ok("POST", f"/api/rooms/{private['code']}/join", json={"name": "Ann"})
    here = await ann.panel(code=private["code"], token=seat["token"])
    assert here["friends"][0]["where"]["code"] == private["code"]


async def test_presence_at_a_table_needs_a_seat_there(friends_api: FriendsApi) -> None:
    ann, bea = await friends(friends_api)
    table = await bea.table()

    refused(
        await ann.call("POST", "/api/friends/presence", json={**table, "token": "not-a-token"}),
        403,
        "not_at_table",
    )
    refused(
        await ann.call("POST", "/api/friends/presence", json={"code": "ZZZZZZZZ", "token": "x"}),
        403,
        "not_at_table",
    )
    refused(
        await ann.call("POST", "/api/friends/presence", json={"code": table["code"]}),
        422,
        "code_and_token",
    )


async def test_a_block_hides_presence_and_refuses_requests_and_invitations(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    await bea.panel()
    await bea.ok("POST", "/api/friends/blocks", json={"id": ann.id})

    assert (await ann.panel())["friends"] == []
    assert [one["name"] for one in (await bea.panel())["blocked"]] == ["Ann"]
    refused(
        await ann.call("GET", "/api/friends/find", params={"name": "Bea"}), 404, "no_such_player"
    )
    refused(
        await ann.call("POST", "/api/friends/requests", json={"id": bea.id}), 404, "no_such_player"
    )
    table = await ann.table()
    refused(
        await ann.call("POST", "/api/friends/invitations", json={"id": bea.id, **table}),
        404,
        "no_such_player",
    )

    await bea.ok("DELETE", f"/api/friends/blocks/{ann.id}")
    await ann.ok("POST", "/api/friends/requests", json={"id": bea.id})
    refused(await bea.call("DELETE", f"/api/friends/blocks/{ann.id}"), 404, "not_blocked")


async def test_an_invitation_accepted_seats_the_friend_by_the_join_path(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    table = await ann.table(room_name="Ann's den")

    sent = await ann.ok("POST", "/api/friends/invitations", json={"id": bea.id, **table})
    assert sent["status"] == "pending"
    arrived = (await bea.panel())["invited_me"]
    assert [(one["host"]["name"], one["room_name"]) for one in arrived] == [("Ann", "Ann's den")]
    assert "code" not in arrived[0]

    accepted = await bea.ok("POST", f"/api/friends/invitations/{sent['id']}/accept")
    assert accepted == {"code": table["code"]}
    seat = await bea.ok("POST", f"/api/rooms/{table['code']}/join", json={"name": "Bea"})
    assert seat["seat"] == 1
    assert [one["status"] for one in (await ann.panel())["invited"]] == ["accepted"]
    assert (await bea.panel())["invited_me"] == []
    refused(
        await bea.call("POST", f"/api/friends/invitations/{sent['id']}/accept"),
        409,
        "invitation_over",
    )


async def test_an_invitation_declined_tells_the_host(friends_api: FriendsApi) -> None:
    ann, bea = await friends(friends_api)
    table = await ann.table()
    sent = await ann.ok("POST", "/api/friends/invitations", json={"id": bea.id, **table})

    await bea.ok("POST", f"/api/friends/invitations/{sent['id']}/decline")
    assert [one["status"] for one in (await ann.panel())["invited"]] == ["declined"]
    refused(
        await ann.call("POST", f"/api/friends/invitations/{sent['id']}/accept"),
        404,
        "no_invitation",
    )


async def test_an_invitation_expires(friends_api: FriendsApi) -> None:
    ann, bea = await friends(friends_api)
    table = await ann.table()
    sent = await ann.ok("POST", "/api/friends/invitations", json={"id": bea.id, **table})
    async with friends_api.sessions() as session:
        await session.execute(
            update(Invitation)
            .where(Invitation.id == sent["id"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        await session.commit()

    assert (await bea.panel())["invited_me"] == []
    assert [one["status"] for one in (await ann.panel())["invited"]] == ["expired"]
    refused(
        await bea.call("POST", f"/api/friends/invitations/{sent['id']}/accept"),
        409,
        "invitation_over",
    )


async def test_only_friends_are_invited_to_a_waiting_table_you_sit_at(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    cy = await friends_api.player("Cy")
    table = await ann.table()

    refused(
        await ann.call("POST", "/api/friends/invitations", json={"id": cy.id, **table}),
        403,
        "not_friends",
    )
    refused(
        await ann.call(
            "POST", "/api/friends/invitations", json={"id": bea.id, **table, "token": "nope"}
        ),
        403,
        "not_at_table",
    )
    await ann.ok(
        "POST",
        f"/api/rooms/{table['code']}/bots",
        json={"level": "easy"},
        headers={"Authorization": f"Bearer {table['token']}"},
    )
    await ann.ok(
        "POST",
        f"/api/rooms/{table['code']}/start",
        headers={"Authorization": f"Bearer {table['token']}"},
    )
    refused(
        await ann.call("POST", "/api/friends/invitations", json={"id": bea.id, **table}),
        409,
        "table_not_waiting",
    )


async def test_every_route_needs_a_session(friends_api: FriendsApi) -> None:
    async with friends_api.stranger() as stranger:
        for method, path in [
            ("GET", "/api/friends"),
            ("GET", "/api/friends/find?name=Ann"),
            ("GET", "/api/friends/link"),
            ("POST", "/api/friends/presence"),
        ]:
            response = await stranger.request(method, path, json={} if method == "POST" else None)
            refused(response, 401, "not_signed_in")


async def test_a_cross_site_call_is_refused(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    response = await ann.call(
        "POST",
        "/api/friends/requests",
        json={"id": bea.id},
        headers={"origin": "https://elsewhere.example"},
    )
    refused(response, 403, "cross_site_request")
    assert (await bea.panel())["asked_me"] == []


async def test_bad_bodies_are_refused_with_the_field_named(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    for body in [{}, {"id": 7}, {"id": "a b"}, {"id": "x" * 65}, {"id": "x", "extra": 1}]:
        response = await ann.call("POST", "/api/friends/requests", json=body)
        refused(response, 422, "invalid_request")
    response = await ann.call("GET", "/api/friends/find", params={"name": "x" * 61})
    refused(response, 422, "invalid_request")
    response = await ann.call("POST", "/api/friends/presence", json={"code": 5, "token": "x"})
    refused(response, 422, "invalid_request")
    for seen in ("x" * 65, 5):
        response = await ann.call("POST", "/api/friends/presence", json={"seen": seen})
        refused(response, 422, "invalid_request")
        assert "seen" in response.text


async def test_look_ups_are_limited_per_account(friends_api: FriendsApi) -> None:
    ann = await friends_api.player("Ann")
    await friends_api.player("Bea")
    limit = friends_api.settings.friend_lookups_per_minute
    for _ in range(limit):
        await ann.ok("GET", "/api/friends/find", params={"name": "Bea"})

    response = await ann.call("GET", "/api/friends/find", params={"name": "Bea"})
    refused(response, 429, "too_many_lookups")
    assert response.headers["retry-after"] == "60"


async def test_requests_and_invitations_are_limited_per_account(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    table = await ann.table()
    for _ in range(friends_api.settings.invitations_per_minute):
        await ann.ok("POST", "/api/friends/invitations", json={"id": bea.id, **table})
    refused(
        await ann.call("POST", "/api/friends/invitations", json={"id": bea.id, **table}),
        429,
        "too_many_invitations",
    )

    others = [await friends_api.player(f"P{index}") for index in range(2)]
    cy = await friends_api.player("Cy")
    for _ in range(friends_api.settings.friend_requests_per_minute):
        await cy.call("POST", "/api/friends/requests", json={"id": others[0].id})
    refused(
        await cy.call("POST", "/api/friends/requests", json={"id": others[1].id}),
        429,
        "too_many_friend_requests",
    )


async def test_the_friends_list_is_bounded(friends_api: FriendsApi) -> None:
    friends_api.settings.max_friends = 1
    ann = await friends_api.player("Ann")
    bea = await friends_api.player("Bea")
    cy = await friends_api.player("Cy")
    await ann.ok("POST", "/api/friends/requests", json={"id": bea.id})

    refused(
        await ann.call("POST", "/api/friends/requests", json={"id": cy.id}),
        429,
        "too_many_friends",
    )


async def test_an_unchanged_panel_is_answered_in_a_few_bytes(friends_api: FriendsApi) -> None:
    ann, bea = await friends(friends_api)
    await bea.panel()
    first = await ann.panel()
    assert first["version"]
    again = await ann.panel(seen=first["version"])
    assert again == {
        "unchanged": True,
        "version": first["version"],
        "poll_seconds": friends_api.settings.friends_poll_seconds,
    }
    # Without ``seen`` (or with another version) the whole panel comes, as before.
    assert (await ann.panel())["version"] == first["version"]
    assert (await ann.panel(seen="older"))["friends"] == first["friends"]


async def test_every_change_a_panel_shows_gives_it_a_new_version(
    friends_api: FriendsApi,
) -> None:
    ann, bea = await friends(friends_api)
    cal = await friends_api.player("Cal")
    seen = (await ann.panel())["version"]

    async def changed(what: str) -> dict[str, Any]:
        nonlocal seen
        answer = await ann.panel(seen=seen)
        assert not answer.get("unchanged"), f"{what} left the panel unchanged"
        assert answer["version"] != seen
        seen = answer["version"]
        return answer

    await bea.panel()
    assert (await changed("Bea coming online"))["friends"][0]["where"]["online"]
    public = await bea.table(visibility="public")
    await bea.panel(**public)
    assert (await changed("Bea sitting down"))["friends"][0]["where"]["code"] == public["code"]
    await cal.ok("POST", "/api/friends/requests", json={"id": ann.id})
    assert [one["name"] for one in (await changed("Cal asking"))["asked_me"]] == ["Cal"]
    renamed = await bea.ok("PATCH", "/api/accounts/me", json={"name": "Beatrix"})
    assert renamed["name"] == "Beatrix"
    assert (await changed("Bea's new name"))["friends"][0]["name"] == "Beatrix"
    table = await ann.table()
    await ann.ok("POST", "/api/friends/invitations", json={"id": bea.id, **table})
    assert [one["status"] for one in (await changed("an invitation"))["invited"]] == ["pending"]
    invitation = (await bea.panel())["invited_me"][0]["id"]
    await bea.ok("POST", f"/api/friends/invitations/{invitation}/decline")
    assert [one["status"] for one in (await changed("its answer"))["invited"]] == ["declined"]
    await ann.ok("POST", "/api/friends/blocks", json={"id": cal.id})
    assert [one["name"] for one in (await changed("a block"))["blocked"]] == ["Cal"]
    await bea.ok("DELETE", f"/api/friends/{ann.id}")
    assert (await changed("Bea parting"))["friends"] == []
    assert (await ann.panel(seen=seen))["unchanged"] is True
