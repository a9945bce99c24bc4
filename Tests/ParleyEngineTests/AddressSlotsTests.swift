import ParleyEngine
import Testing

/// Slots per client address (`AddressSlots`): what keeps one address from taking every
/// unsigned connection or every password check.
@Suite struct AddressSlotsTests {
    @Test func anAddressHoldsItsLimitAndOthersAreUntouched() {
        let slots = AddressSlots(limit: 2)
        let first = slots.admit("10.0.0.1")
        let second = slots.admit("10.0.0.1")
        #expect(first != nil && second != nil)
        #expect(slots.admit("10.0.0.1") == nil, "the third from one address is refused")
        #expect(slots.admit("10.0.0.2") != nil, "another address is not")

        // Given back once, however often released; then the address may come in again.
        first?.release()
        first?.release()
        #expect(slots.held(by: "10.0.0.1") == 1)
        let third = slots.admit("10.0.0.1")
        #expect(third != nil)
        #expect(slots.admit("10.0.0.1") == nil)

        // Taken again past the limit (a connection that signs out was let in already),
        // and given back once more.
        first?.retake()
        #expect(slots.held(by: "10.0.0.1") == 3)
        first?.release()
        second?.release()
        third?.release()
        #expect(slots.held(by: "10.0.0.1") == 0)
    }

    @Test func zeroMeansNoLimit() {
        let slots = AddressSlots(limit: 0)
        let held = (0..<1000).compactMap { _ in slots.admit("10.0.0.1") }
        #expect(held.count == 1000)
    }
}
